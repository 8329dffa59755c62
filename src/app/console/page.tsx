import type { Metadata } from "next";
import { WorkspacesView } from "@/components/console/workspaces/workspaces-view";

export const metadata: Metadata = { title: "Workspaces" };

export default function ConsoleHome() {
  return <WorkspacesView />;
}
