"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Globe } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

/** "Add a domain": hostname, the product (by name) and its environment. */
export function AddDomainForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 100, order: "desc" }));
  const [product, setProduct] = useState("");
  const [environment, setEnvironment] = useState<"staging" | "production">("production");
  const [hostname, setHostname] = useState("");
  const create = useMutation(
    trpc.domains.create.mutationOptions({
      onSuccess: async () => {
        setHostname("");
        await queryClient.invalidateQueries(trpc.domains.pathFilter());
      },
    }),
  );
  const items = products.data?.items ?? [];
  const chosen = product || items[0]?.id || "";

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ ws, product_id: chosen, environment_type: environment, hostname: hostname.trim() });
  }

  return (
    <SectionCard
      title="Add a domain"
      description={
        <>
          Serve a product&apos;s staging or production environment on your own hostname. You will get two DNS records to
          create: a TXT record that proves you own the name, and the record that routes its traffic to Capstan.
        </>
      }
      contentClassName="space-y-4"
    >
      {items.length === 0 && !products.isPending ? (
        <Alert>Add a product first: a domain routes to a product&apos;s environment.</Alert>
      ) : null}
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[2fr_2fr_1fr_auto] sm:items-end" autoComplete="off">
        <TextField
          id="dom-hostname"
          label="Hostname"
          required
          maxLength={300}
          placeholder="app.example.com"
          value={hostname}
          onValue={setHostname}
          spellCheck={false}
        />
        <Field id="dom-product" label="Product">
          <Select id="dom-product" value={chosen} onChange={(e) => setProduct(e.target.value)}>
            {items.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="dom-env" label="Environment">
          <Select
            id="dom-env"
            value={environment}
            onChange={(e) => setEnvironment(e.target.value as "staging" | "production")}
          >
            <option value="production">production</option>
            <option value="staging">staging</option>
          </Select>
        </Field>
        <Button type="submit" disabled={create.isPending || !hostname.trim() || !chosen}>
          <Globe aria-hidden="true" />
          {create.isPending ? "Adding…" : "Add domain"}
        </Button>
      </form>
      {create.error ? <Alert problem={problemOf(create.error)} /> : null}
    </SectionCard>
  );
}
