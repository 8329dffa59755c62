-- One round trip per Bridge reservation: the month budget and, for ai.generate,
-- the first candidate binding whose own token budget fits, reserved together in
-- one statement (so in one transaction), or nothing at all.
-- Returns the binding id that holds the reservation ('' when no binding was
-- asked for), or NULL when the month budget or every candidate binding is full.
CREATE FUNCTION capstan_reserve(
    p_reservation TEXT,
    p_budget TEXT,
    p_units DOUBLE PRECISION,
    p_bindings TEXT[],
    p_expires TIMESTAMPTZ
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
            -- Still under this statement's row lock: nobody saw the month reservation.
            UPDATE budgets SET reserved_units = reserved_units - p_units WHERE id = p_budget;
            RETURN NULL;
        END IF;
    END IF;
    INSERT INTO budget_reservations (id, budget_id, binding_id, units, expires_at)
    VALUES (p_reservation, p_budget, chosen, p_units, p_expires);
    RETURN coalesce(chosen, '');
END
$$;

-- Settles one reservation: releases it from the month budget and its binding
-- and charges the actual units (to p_used_binding when a fallback binding
-- served the call). Locks in the same order as capstan_reserve (the budget
-- row, then binding rows in id order), so reservations and settlements never
-- deadlock. Returns false when the reservation was already settled or swept.
CREATE FUNCTION capstan_settle(
    p_reservation TEXT,
    p_actual DOUBLE PRECISION,
    p_used_binding TEXT
) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
BEGIN
    DELETE FROM budget_reservations WHERE id = p_reservation RETURNING budget_id, binding_id, units INTO r;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    UPDATE budgets
       SET reserved_units = GREATEST(reserved_units - r.units, 0), used_units = used_units + p_actual, updated_at = now()
     WHERE id = r.budget_id;
    IF r.binding_id IS NOT NULL THEN
        UPDATE provider_bindings p
           SET reserved_units = CASE WHEN p.id = r.binding_id THEN GREATEST(p.reserved_units - r.units, 0) ELSE p.reserved_units END,
               used_units = CASE WHEN p.id = coalesce(p_used_binding, r.binding_id) THEN p.used_units + p_actual ELSE p.used_units END,
               updated_at = now()
         WHERE p.id IN (SELECT id FROM provider_bindings WHERE id IN (r.binding_id, coalesce(p_used_binding, r.binding_id)) ORDER BY id FOR UPDATE);
    END IF;
    RETURN TRUE;
END
$$;

-- Group commit: many reservations (or settlements) in one statement, in the
-- caller's order (sorted by budget id, so every batch takes budget rows in the
-- same order and batches never deadlock each other). Each item behaves exactly
-- like its single-item function; the results come back in input order.
CREATE FUNCTION capstan_reserve_batch(
    p_ids TEXT[],
    p_budgets TEXT[],
    p_units DOUBLE PRECISION[],
    p_bindings TEXT[],
    p_expires TIMESTAMPTZ
) RETURNS TEXT[]
LANGUAGE plpgsql AS $$
DECLARE
    results TEXT[] := '{}';
BEGIN
    FOR i IN 1..coalesce(cardinality(p_ids), 0) LOOP
        results := results || capstan_reserve(
            p_ids[i], p_budgets[i], p_units[i],
            CASE WHEN p_bindings[i] = '' THEN '{}'::TEXT[] ELSE string_to_array(p_bindings[i], ',') END,
            p_expires);
    END LOOP;
    RETURN results;
END
$$;

CREATE FUNCTION capstan_settle_batch(
    p_ids TEXT[],
    p_actual DOUBLE PRECISION[],
    p_used_bindings TEXT[]
) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    settled INTEGER := 0;
    rec RECORD;
BEGIN
    -- In budget id order, like capstan_reserve_batch's callers sort theirs.
    FOR rec IN
        SELECT x.id, x.actual, x.used
          FROM unnest(p_ids, p_actual, p_used_bindings) AS x(id, actual, used)
          LEFT JOIN budget_reservations r ON r.id = x.id
         ORDER BY r.budget_id NULLS LAST, x.id
    LOOP
        IF capstan_settle(rec.id, rec.actual, rec.used) THEN
            settled := settled + 1;
        END IF;
    END LOOP;
    RETURN settled;
END
$$;
