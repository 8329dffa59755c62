import type { Metadata } from "next";
import { RunnerHostsView } from "@/components/console/runners/runner-hosts-view";

export const metadata: Metadata = { title: "Runner hosts" };

export default function RunnerHostsPage() {
  return <RunnerHostsView />;
}
