import type { Metadata } from "next";
import { SigningKeysView } from "@/components/console/signing-keys/signing-keys-view";

export const metadata: Metadata = { title: "Signing keys" };

export default function SigningKeysPage() {
  return <SigningKeysView />;
}
