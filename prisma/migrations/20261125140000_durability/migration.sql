-- Durability (issue #15 item 1): the budget reservation is the Bridge call's
-- in-flight journal. It is written (committed) before the provider is called
-- and names the server process that holds it (instance_id, whose liveness is
-- a session-level advisory lock that process holds) and the call it belongs
-- to (invocation_id). The call's record, its settlement and its events then
-- commit together in one statement; a reservation still present after its
-- process died is a call that may have reached the provider, so recovery
-- charges it the reserved amount (never zero).
ALTER TABLE "budget_reservations" ADD COLUMN "instance_id" TEXT;
ALTER TABLE "budget_reservations" ADD COLUMN "invocation_id" TEXT;
CREATE INDEX "budget_reservations_instance_id_idx" ON "budget_reservations"("instance_id");

DROP FUNCTION capstan_reserve_batch(TEXT[], TEXT[], DOUBLE PRECISION[], TEXT[], TIMESTAMPTZ);
DROP FUNCTION capstan_reserve(TEXT, TEXT, DOUBLE PRECISION, TEXT[], TIMESTAMPTZ);

-- As before (20261122000800_reserve_function), plus the journal columns.
CREATE FUNCTION capstan_reserve(
    p_reservation TEXT,
    p_budget TEXT,
    p_units DOUBLE PRECISION,
    p_bindings TEXT[],
    p_expires TIMESTAMPTZ,
    p_instance TEXT,
    p_invocation TEXT
) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    chosen TEXT;
BEGIN
    UPDATE budgets SET reserved_units = reserved_units + p_units, updated_at = now()
     WHERE id = p_budget AND (limit_units IS NULL OR used_units + reserved_units + p_units <= limit_units);
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
    INSERT INTO budget_reservations (id, budget_id, binding_id, units, expires_at, instance_id, invocation_id)
    VALUES (p_reservation, p_budget, chosen, p_units, p_expires, p_instance, p_invocation);
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
    p_invocations TEXT[]
) RETURNS TEXT[]
LANGUAGE plpgsql AS $$
DECLARE
    results TEXT[] := '{}';
BEGIN
    FOR i IN 1..coalesce(cardinality(p_ids), 0) LOOP
        results := results || capstan_reserve(
            p_ids[i], p_budgets[i], p_units[i],
            CASE WHEN p_bindings[i] = '' THEN '{}'::TEXT[] ELSE string_to_array(p_bindings[i], ',') END,
            p_expires, p_instance, nullif(p_invocations[i], ''));
    END LOOP;
    RETURN results;
END
$$;
