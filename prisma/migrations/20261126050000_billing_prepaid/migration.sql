-- Billing, prepaid tiers (issue #19; docs/decisions.md "Billing: prepaid,
-- Stripe, renewal"). A tier is `postpaid` (default) or `prepaid`. A prepaid
-- workspace's calls hold money from its wallet in the SAME statement that
-- reserves the budget (capstan_reserve), and the settlement (capstan_settle,
-- in the call record's own statement) releases the hold and debits the
-- actual price. The wallet balance a hold is checked against is kept per
-- (workspace, currency) by a trigger on the append-only ledger, so it is
-- always the ledger's sum and can be tested and updated in one row.

ALTER TABLE "subscription_tiers" ADD COLUMN "billing_mode" TEXT NOT NULL DEFAULT 'postpaid';
ALTER TABLE "subscription_tiers" ADD CONSTRAINT "subscription_tiers_billing_mode_check" CHECK ("billing_mode" IN ('postpaid', 'prepaid'));

-- Written off (or found empty) after expiry: the expiry pass skips it from then on.
ALTER TABLE "wallet_grants" ADD COLUMN "closed_at" TIMESTAMPTZ(3);
UPDATE "wallet_grants" g SET "closed_at" = now()
 WHERE EXISTS (SELECT 1 FROM "wallet_entries" e WHERE e."source_kind" = 'grant_expiry' AND e."source_id" = g."id");
CREATE INDEX "wallet_grants_open_expiry_idx" ON "wallet_grants"("workspace_id", "expires_at") WHERE "closed_at" IS NULL;

-- The journal carries the hold: recovery and the sweeper charge it like the units.
ALTER TABLE "budget_reservations" ADD COLUMN "hold_currency" TEXT;
ALTER TABLE "budget_reservations" ADD COLUMN "hold_micros" BIGINT NOT NULL DEFAULT 0;

CREATE TABLE "wallet_balances" (
    "workspace_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "balance_micros" BIGINT NOT NULL DEFAULT 0,
    "held_micros" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "wallet_balances_pkey" PRIMARY KEY ("workspace_id", "currency"),
    CONSTRAINT "wallet_balances_held_check" CHECK ("held_micros" >= 0)
);
INSERT INTO "wallet_balances" ("workspace_id", "currency", "balance_micros")
SELECT "workspace_id", "currency", sum("amount_micros") FROM "wallet_entries" GROUP BY "workspace_id", "currency";

CREATE FUNCTION capstan_wallet_balance_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wallet_balances (workspace_id, currency, balance_micros) VALUES (NEW.workspace_id, NEW.currency, NEW.amount_micros)
    ON CONFLICT (workspace_id, currency) DO UPDATE
       SET balance_micros = wallet_balances.balance_micros + EXCLUDED.balance_micros, updated_at = now();
    RETURN NULL;
END
$$;
CREATE TRIGGER "wallet_entries_balance" AFTER INSERT ON "wallet_entries"
    FOR EACH ROW EXECUTE FUNCTION capstan_wallet_balance_apply();

-- A ULID body in the alphabet of src/server/platform/ids.ts (ledger ids written by SQL).
CREATE FUNCTION capstan_ulid() RETURNS TEXT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    alphabet CONSTANT TEXT := '0123456789abcdefghjkmnpqrstvwxyz';
    t BIGINT := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    out TEXT := '';
BEGIN
    FOR i IN 1..10 LOOP
        out := substr(alphabet, (t % 32)::int + 1, 1) || out;
        t := t / 32;
    END LOOP;
    out := out || substr(alphabet, floor(random() * 16)::int + 1, 1);
    FOR i IN 1..15 LOOP
        out := out || substr(alphabet, floor(random() * 32)::int + 1, 1);
    END LOOP;
    RETURN out;
END
$$;

CREATE FUNCTION capstan_wallet_lock(p_ws TEXT) RETURNS VOID
LANGUAGE sql AS $$ SELECT pg_advisory_xact_lock(hashtextextended('wallet:' || p_ws, 0)) $$;

-- Debits p_amount micros (the one implementation; wallet.service.ts spend()
-- calls it too): unexpired grants first (highest priority, soonest expiry,
-- oldest), the rest from paid balance. Caller holds the wallet lock.
CREATE FUNCTION capstan_wallet_debit(
    p_ws TEXT, p_currency TEXT, p_amount BIGINT, p_kind TEXT, p_source_kind TEXT, p_source_id TEXT, p_now TIMESTAMPTZ
) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    remaining_amount BIGINT := p_amount;
    g RECORD;
    bucket BIGINT;
    take BIGINT;
    n INTEGER := 0;
BEGIN
    FOR g IN SELECT id FROM wallet_grants
              WHERE workspace_id = p_ws AND currency = p_currency AND expires_at > p_now AND closed_at IS NULL
              ORDER BY priority DESC, expires_at, created_at, id
    LOOP
        EXIT WHEN remaining_amount <= 0;
        SELECT coalesce(sum(amount_micros), 0) INTO bucket FROM wallet_entries
         WHERE workspace_id = p_ws AND currency = p_currency AND grant_id = g.id;
        CONTINUE WHEN bucket <= 0;
        take := least(bucket, remaining_amount);
        INSERT INTO wallet_entries (id, workspace_id, currency, kind, amount_micros, grant_id, source_kind, source_id, line, created_at)
        VALUES ('led_' || capstan_ulid(), p_ws, p_currency, p_kind, -take, g.id, p_source_kind, p_source_id, n, p_now);
        n := n + 1;
        remaining_amount := remaining_amount - take;
    END LOOP;
    IF remaining_amount > 0 OR n = 0 THEN
        INSERT INTO wallet_entries (id, workspace_id, currency, kind, amount_micros, grant_id, source_kind, source_id, line, created_at)
        VALUES ('led_' || capstan_ulid(), p_ws, p_currency, p_kind, -remaining_amount, NULL, p_source_kind, p_source_id, n, p_now);
    END IF;
END
$$;

-- Writes off what is left of grants past their expiry (an `expiry` entry
-- sourced by the grant) and closes them. Cheap when nothing is due (one
-- index probe, no lock); else takes the wallet lock. Returns how many closed.
CREATE FUNCTION capstan_wallet_expire(p_ws TEXT, p_now TIMESTAMPTZ) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    g RECORD;
    bucket BIGINT;
    closed INTEGER := 0;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM wallet_grants WHERE workspace_id = p_ws AND expires_at <= p_now AND closed_at IS NULL) THEN
        RETURN 0;
    END IF;
    PERFORM capstan_wallet_lock(p_ws);
    FOR g IN SELECT id, currency FROM wallet_grants
              WHERE workspace_id = p_ws AND expires_at <= p_now AND closed_at IS NULL ORDER BY id FOR UPDATE
    LOOP
        SELECT coalesce(sum(amount_micros), 0) INTO bucket FROM wallet_entries
         WHERE workspace_id = p_ws AND currency = g.currency AND grant_id = g.id;
        IF bucket > 0 THEN
            INSERT INTO wallet_entries (id, workspace_id, currency, kind, amount_micros, grant_id, source_kind, source_id, line, created_at)
            VALUES ('led_' || capstan_ulid(), p_ws, g.currency, 'expiry', -bucket, g.id, 'grant_expiry', g.id, 0, p_now)
            ON CONFLICT (source_kind, source_id, line) DO NOTHING;
        END IF;
        UPDATE wallet_grants SET closed_at = p_now WHERE id = g.id;
        closed := closed + 1;
    END LOOP;
    RETURN closed;
END
$$;

DROP FUNCTION capstan_reserve_batch(TEXT[], TEXT[], DOUBLE PRECISION[], TEXT[], TIMESTAMPTZ, TEXT, TEXT[]);
DROP FUNCTION capstan_reserve(TEXT, TEXT, DOUBLE PRECISION, TEXT[], TIMESTAMPTZ, TEXT, TEXT);
DROP FUNCTION capstan_settle_batch(TEXT[], DOUBLE PRECISION[], TEXT[]);
DROP FUNCTION capstan_settle(TEXT, DOUBLE PRECISION, TEXT);

-- As in 20261125140000_durability, plus the wallet hold: with p_hold_currency
-- set (a prepaid workspace), p_hold_micros is held from the wallet in this
-- statement, only while balance - held covers it and is above zero; else
-- everything this call reserved is undone and '!wallet' is returned.
CREATE FUNCTION capstan_reserve(
    p_reservation TEXT,
    p_budget TEXT,
    p_units DOUBLE PRECISION,
    p_bindings TEXT[],
    p_expires TIMESTAMPTZ,
    p_instance TEXT,
    p_invocation TEXT,
    p_hold_currency TEXT,
    p_hold_micros BIGINT
) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    chosen TEXT;
    ws TEXT;
BEGIN
    UPDATE budgets SET reserved_units = reserved_units + p_units, updated_at = now()
     WHERE id = p_budget AND (limit_units IS NULL OR used_units + reserved_units + p_units <= limit_units)
    RETURNING workspace_id INTO ws;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF cardinality(p_bindings) > 0 THEN
        FOR i IN 1..cardinality(p_bindings) LOOP
            UPDATE provider_bindings SET reserved_units = reserved_units + p_units, updated_at = now()
             WHERE id = p_bindings[i] AND used_units + reserved_units + p_units <= budget_units
            RETURNING id INTO chosen;
            EXIT WHEN chosen IS NOT NULL;
        END LOOP;
        IF chosen IS NULL THEN
            UPDATE budgets SET reserved_units = reserved_units - p_units WHERE id = p_budget;
            RETURN NULL;
        END IF;
    END IF;
    IF p_hold_currency IS NOT NULL THEN
        PERFORM capstan_wallet_expire(ws, now());
        UPDATE wallet_balances SET held_micros = held_micros + p_hold_micros, updated_at = now()
         WHERE workspace_id = ws AND currency = p_hold_currency
           AND balance_micros - held_micros >= p_hold_micros AND balance_micros - held_micros > 0;
        IF NOT FOUND THEN
            UPDATE budgets SET reserved_units = reserved_units - p_units WHERE id = p_budget;
            IF chosen IS NOT NULL THEN
                UPDATE provider_bindings SET reserved_units = reserved_units - p_units WHERE id = chosen;
            END IF;
            RETURN '!wallet';
        END IF;
    END IF;
    INSERT INTO budget_reservations (id, budget_id, binding_id, units, expires_at, instance_id, invocation_id, hold_currency, hold_micros)
    VALUES (p_reservation, p_budget, chosen, p_units, p_expires, p_instance, p_invocation, p_hold_currency, coalesce(p_hold_micros, 0));
    RETURN coalesce(chosen, '');
END
$$;

CREATE FUNCTION capstan_reserve_batch(
    p_ids TEXT[],
    p_budgets TEXT[],
    p_units DOUBLE PRECISION[],
    p_bindings TEXT[],
    p_expires TIMESTAMPTZ,
    p_instance TEXT,
    p_invocations TEXT[],
    p_hold_currencies TEXT[],
    p_hold_micros BIGINT[]
) RETURNS TEXT[]
LANGUAGE plpgsql AS $$
DECLARE
    results TEXT[] := '{}';
BEGIN
    FOR i IN 1..coalesce(cardinality(p_ids), 0) LOOP
        results := results || capstan_reserve(
            p_ids[i], p_budgets[i], p_units[i],
            CASE WHEN p_bindings[i] = '' THEN '{}'::TEXT[] ELSE string_to_array(p_bindings[i], ',') END,
            p_expires, p_instance, nullif(p_invocations[i], ''), nullif(p_hold_currencies[i], ''), p_hold_micros[i]);
    END LOOP;
    RETURN results;
END
$$;

-- As before, plus the hold: released, and the actual price (p_charge micros,
-- null or 0 = nothing) debited from the wallet in the same statement, sourced
-- by the call (a retried settle finds no reservation and does nothing).
CREATE FUNCTION capstan_settle(
    p_reservation TEXT,
    p_actual DOUBLE PRECISION,
    p_used_binding TEXT,
    p_charge BIGINT
) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    ws TEXT;
BEGIN
    DELETE FROM budget_reservations WHERE id = p_reservation
    RETURNING budget_id, binding_id, units, invocation_id, hold_currency, hold_micros INTO r;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    UPDATE budgets
       SET reserved_units = GREATEST(reserved_units - r.units, 0), used_units = used_units + p_actual, updated_at = now()
     WHERE id = r.budget_id
    RETURNING workspace_id INTO ws;
    IF r.binding_id IS NOT NULL THEN
        UPDATE provider_bindings p
           SET reserved_units = CASE WHEN p.id = r.binding_id THEN GREATEST(p.reserved_units - r.units, 0) ELSE p.reserved_units END,
               used_units = CASE WHEN p.id = coalesce(p_used_binding, r.binding_id) THEN p.used_units + p_actual ELSE p.used_units END,
               updated_at = now()
         WHERE p.id IN (SELECT id FROM provider_bindings WHERE id IN (r.binding_id, coalesce(p_used_binding, r.binding_id)) ORDER BY id FOR UPDATE);
    END IF;
    IF r.hold_currency IS NOT NULL AND ws IS NOT NULL THEN
        PERFORM capstan_wallet_lock(ws);
        IF r.hold_micros > 0 THEN
            UPDATE wallet_balances SET held_micros = GREATEST(held_micros - r.hold_micros, 0), updated_at = now()
             WHERE workspace_id = ws AND currency = r.hold_currency;
        END IF;
        IF coalesce(p_charge, 0) > 0 THEN
            PERFORM capstan_wallet_debit(ws, r.hold_currency, p_charge, 'usage',
                CASE WHEN r.invocation_id IS NULL THEN 'budget_reservation' ELSE 'capability_invocation' END,
                coalesce(r.invocation_id, p_reservation), now());
        END IF;
    END IF;
    RETURN TRUE;
END
$$;

CREATE FUNCTION capstan_settle_batch(
    p_ids TEXT[],
    p_actual DOUBLE PRECISION[],
    p_used_bindings TEXT[],
    p_charges BIGINT[]
) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    settled INTEGER := 0;
    rec RECORD;
BEGIN
    FOR rec IN
        SELECT x.id, x.actual, x.used, x.charge
          FROM unnest(p_ids, p_actual, p_used_bindings, p_charges) AS x(id, actual, used, charge)
          LEFT JOIN budget_reservations r ON r.id = x.id
         ORDER BY r.budget_id NULLS LAST, x.id
    LOOP
        IF capstan_settle(rec.id, rec.actual, rec.used, rec.charge) THEN
            settled := settled + 1;
        END IF;
    END LOOP;
    RETURN settled;
END
$$;
