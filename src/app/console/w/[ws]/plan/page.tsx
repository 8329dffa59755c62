import type { Metadata } from "next";
import { PlanView } from "@/components/console/usage/plan-view";

export const metadata: Metadata = { title: "Plan & budgets" };

export default async function PlanPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <PlanView ws={ws} />;
}
