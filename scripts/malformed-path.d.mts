import type { IncomingMessage, ServerResponse } from "node:http";

export function pathDecodes(url: string | undefined): boolean;
export function answerMalformedPath(req: IncomingMessage, res: ServerResponse): boolean;
