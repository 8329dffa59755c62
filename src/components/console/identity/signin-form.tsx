"use client";

import { LogIn } from "lucide-react";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { safeCallbackUrl } from "./callback-url";
import { TextField } from "../shared/text-field";

export function SignInForm({ callbackUrl, initialError }: { callbackUrl?: string; initialError?: string }) {
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(
    initialError ? "Sign-in failed. Check your email and password." : null,
  );

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      const target = safeCallbackUrl(callbackUrl, window.location.origin);
      const res = await signIn("credentials", { redirect: false, email, password, callbackUrl: target });
      if (!res || res.error || !res.ok) {
        setError(
          res?.error === "CredentialsSignin" || res?.status === 401
            ? "The email or password is incorrect."
            : "Sign-in failed. Try again in a moment.",
        );
        setPending(false);
        return;
      }
      router.push(target);
      router.refresh();
    } catch {
      setError("Sign-in failed: the server could not be reached.");
      setPending(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-4">
      {error ? <Alert tone="danger">{error}</Alert> : null}
      <TextField
        id="email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        required
        autoFocus
        value={email}
        onValue={setEmail}
      />
      <TextField
        id="password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onValue={setPassword}
      />
      <Button type="submit" className="w-full" disabled={pending}>
        <LogIn aria-hidden="true" />
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
