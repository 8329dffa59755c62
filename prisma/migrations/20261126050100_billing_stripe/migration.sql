-- Billing, Stripe gateway (issue #19; docs/decisions.md "Billing: prepaid,
-- Stripe, renewal"): an order remembers its Checkout Session (the gateway's
-- reference, unique per gateway), where to pay, and the PaymentIntent that
-- paid it (what a refund names); a refund remembers the gateway's refund.
-- An order whose Checkout Session expired unpaid is `expired`.
ALTER TABLE "payment_orders" ADD COLUMN "gateway_reference" TEXT;
ALTER TABLE "payment_orders" ADD COLUMN "gateway_payment_ref" TEXT;
ALTER TABLE "payment_orders" ADD COLUMN "payment_url" TEXT;
CREATE UNIQUE INDEX "payment_orders_gateway_gateway_reference_key" ON "payment_orders"("gateway", "gateway_reference");
ALTER TABLE "payment_orders" DROP CONSTRAINT "payment_orders_status_check";
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed', 'expired'));
ALTER TABLE "payment_refunds" ADD COLUMN "gateway_reference" TEXT;
