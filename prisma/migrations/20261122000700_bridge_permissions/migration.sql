-- Service identity permissions: the capability actions an identity may call
-- through the Bridge (null = every action its product's contract allows).
-- Set at creation and immutable (see docs/decisions.md "Bridge: permission and policy").
ALTER TABLE "service_identities" ADD COLUMN "permissions" JSONB;
