import dns2 from "dns2";

/**
 * A real authoritative DNS server on loopback (UDP, the `dns2` package) with
 * a zone the test edits as it goes: TXT, CNAME, A and AAAA records by name;
 * names in `silent` get no answer at all (a resolver timeout). Unknown names
 * answer NXDOMAIN.
 */
export type TZone = Map<string, { TXT?: string[]; CNAME?: string; A?: string[]; AAAA?: string[] }>;
export type TDnsServer = {
  address: string;
  zone: TZone;
  silent: Set<string>;
  queries: string[];
  close: () => Promise<void>;
};

export async function startDnsServer(port = 0): Promise<TDnsServer> {
  const { Packet } = dns2;
  const zone: TZone = new Map();
  const silent = new Set<string>();
  const queries: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      if (!q) {
        void send(response);
        return;
      }
      const name = q.name.toLowerCase();
      queries.push(`${name} ${q.type}`);
      if (silent.has(name)) return;
      const rec = zone.get(name);
      const base = { name: q.name, class: Packet.CLASS.IN, ttl: 1 };
      // dns2 encodes plain record objects; its typings ask for Resource instances.
      const answers = response.answers as unknown as Array<Record<string, unknown>>;
      if (!rec) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (q.type === Packet.TYPE.TXT) {
        for (const data of rec.TXT ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data });
      } else if (q.type === Packet.TYPE.CNAME && rec.CNAME) {
        answers.push({ ...base, type: Packet.TYPE.CNAME, domain: rec.CNAME });
      } else if (q.type === Packet.TYPE.A) {
        for (const address of rec.A ?? []) answers.push({ ...base, type: Packet.TYPE.A, address });
      } else if (q.type === Packet.TYPE.AAAA) {
        for (const address of rec.AAAA ?? []) answers.push({ ...base, type: Packet.TYPE.AAAA, address });
      }
      void send(response);
    },
  });
  await server.listen({ udp: { port, address: "127.0.0.1" } });
  const bound = (server.addresses() as { udp: { port: number } }).udp.port;
  return { address: `127.0.0.1:${bound}`, zone, silent, queries, close: () => server.close() };
}
