import path from "node:path";
import { reapUnder } from "../../test/support/reap";

/** No hosted app, gVisor sandbox or tmpfs mount of the e2e server may outlive the run (test/support/reap.ts). */
export default function globalTeardown(): void {
  reapUnder(path.resolve(".data-e2e"));
}
