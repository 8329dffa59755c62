/** @type {import('next').NextConfig} */
const nextConfig = {
  // pg and Prisma are external by default under Turbopack; these two are not.
  serverExternalPackages: [
    "trpc-to-openapi",
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@node-rs/argon2",
    "nodemailer",
    "prom-client",
    "@opentelemetry/sdk-node",
    "@opentelemetry/exporter-trace-otlp-http",
  ],
  poweredByHeader: false,
  async rewrites() {
    return [
      { source: "/.well-known/jwks.json", destination: "/api/well-known/jwks" },
      { source: "/.well-known/openid-configuration", destination: "/api/well-known/openid-configuration" },
      { source: "/.well-known/oauth-authorization-server", destination: "/api/well-known/oauth-authorization-server" },
    ];
  },
};
export default nextConfig;
