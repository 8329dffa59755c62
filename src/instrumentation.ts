/** Next.js calls this once per server process before serving requests. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { boot } = await import("./server/boot");
    await boot();
  }
}
