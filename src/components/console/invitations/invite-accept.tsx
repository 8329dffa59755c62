"use client";

import { useMutation } from "@tanstack/react-query";
import { LogIn, LogOut, UserPlus } from "lucide-react";
import { signIn, signOut } from "next-auth/react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonVariants } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatDateTime } from "../shared/format";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

type TProps = {
  token: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  accountExists: boolean;
  expiresAt: string;
  signedInEmail: string | null;
};

/** Accepting an invitation: join as the signed-in user, or sign in, or create the account for the invited address. */
export function InviteAccept({
  token,
  email,
  workspaceId,
  workspaceName,
  accountExists,
  expiresAt,
  signedInEmail,
}: TProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const here = `/invite/${token}`;
  const land = (ws: string) => {
    router.push(`/console/w/${ws}`);
    router.refresh();
  };
  const accept = useMutation(trpc.invitations.accept.mutationOptions({ onSuccess: (r) => land(r.workspace_id) }));
  const signUp = useMutation(trpc.invitations.signUp.mutationOptions());
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [signInError, setSignInError] = useState<string | null>(null);
  const expiry = (
    <p className="text-xs text-slate-600">This link works once and expires {formatDateTime(expiresAt)}.</p>
  );

  if (signedInEmail && signedInEmail.toLowerCase() === email) {
    return (
      <div className="space-y-4">
        <p className="text-sm">
          You are signed in as <strong>{signedInEmail}</strong>.
        </p>
        {accept.error ? <Alert problem={problemOf(accept.error)} /> : null}
        <Button
          className="w-full"
          disabled={accept.isPending || accept.isSuccess}
          onClick={() => accept.mutate({ token })}
        >
          <UserPlus aria-hidden="true" />
          {accept.isPending || accept.isSuccess ? "Joining…" : `Join ${workspaceName}`}
        </Button>
        {expiry}
      </div>
    );
  }

  if (signedInEmail) {
    return (
      <div className="space-y-4">
        <Alert tone="warning" title="Signed in with another address">
          This invitation is for {email}, and you are signed in as {signedInEmail}. Sign out, then open the link again
          to accept it as {email}.
        </Alert>
        <Button variant="secondary" className="w-full" onClick={() => void signOut({ callbackUrl: here })}>
          <LogOut aria-hidden="true" />
          Sign out
        </Button>
      </div>
    );
  }

  if (accountExists) {
    return (
      <div className="space-y-4">
        <p className="text-sm">
          An account for <strong>{email}</strong> exists. Sign in with it to accept the invitation.
        </p>
        <Link className={cn(buttonVariants(), "w-full")} href={`/signin?callbackUrl=${encodeURIComponent(here)}`}>
          <LogIn aria-hidden="true" />
          Sign in to accept
        </Link>
        {expiry}
      </div>
    );
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSignInError(null);
    try {
      const joined = await signUp.mutateAsync({ token, name, password });
      const res = await signIn("credentials", { redirect: false, email: joined.email, password });
      if (!res || res.error || !res.ok) {
        setSignInError(
          "Your account was created and you joined the workspace, but signing in failed. Sign in with your new password.",
        );
        return;
      }
      land(joined.workspace_id);
    } catch {
      // The mutation's error is shown below.
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-4">
      <p className="text-sm">
        Create your Capstan account for <strong>{email}</strong> to join {workspaceName}.
      </p>
      {signUp.error ? <Alert problem={problemOf(signUp.error)} /> : null}
      {signInError ? (
        <Alert tone="warning">
          {signInError}{" "}
          <Link className="underline" href={`/signin?callbackUrl=${encodeURIComponent(`/console/w/${workspaceId}`)}`}>
            Sign in
          </Link>
        </Alert>
      ) : null}
      <Field id="invite-email" label="Email">
        <Input id="invite-email" type="email" value={email} readOnly autoComplete="username" />
      </Field>
      <TextField
        id="invite-name"
        label="Your name"
        name="name"
        required
        maxLength={100}
        autoComplete="name"
        autoFocus
        value={name}
        onValue={setName}
      />
      <TextField
        id="invite-password"
        label="Password"
        hint="At least 12 characters."
        name="password"
        type="password"
        required
        minLength={12}
        maxLength={256}
        autoComplete="new-password"
        aria-describedby="invite-password-hint"
        value={password}
        onValue={setPassword}
      />
      <Button type="submit" className="w-full" disabled={signUp.isPending || signUp.isSuccess}>
        <UserPlus aria-hidden="true" />
        {signUp.isPending || signUp.isSuccess ? "Joining…" : `Create account and join`}
      </Button>
      {expiry}
    </form>
  );
}
