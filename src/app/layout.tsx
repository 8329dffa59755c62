import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: "Capstan",
  description: "Control plane for hosted apps and the capability Bridge",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
