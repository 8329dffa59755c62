-- Budget leases (issue #34 item 1; docs/decisions.md "One commit per priced call").
-- A lease is a budget reservation (a budget_reservations row whose id starts
-- `rsl_`) that a server process takes for several calls at once; each call
-- then draws its reservation from the lease in memory, journals the draw in
-- the process's local write-ahead journal, and is settled in its record's own
-- statement by capstan_settle_drawn: the drawn units leave the lease and the
-- budget's reserved units, the actual units are used, exactly as a per-call
-- reservation's settlement would do. So used + reserved never exceeds a limit
-- (the lease was reserved under it), and a priced call commits once.

-- Settles one call drawn from lease p_lease: p_drawn units (and p_hold wallet
-- micros) leave the lease and the budget's / binding's / wallet's reserved
-- amounts; p_actual units are used (on p_used_binding when a fallback served
-- the call) and p_charge micros debited, sourced by the call p_invocation (a
-- retried settlement debits nothing twice). A lease already swept or recovered
-- (the row is gone) settles nothing: its remainder was charged or released then.
CREATE FUNCTION capstan_settle_drawn(
    p_lease TEXT,
    p_invocation TEXT,
    p_drawn DOUBLE PRECISION,
    p_actual DOUBLE PRECISION,
    p_used_binding TEXT,
    p_hold BIGINT,
    p_charge BIGINT
) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    ws TEXT;
BEGIN
    UPDATE budget_reservations
       SET units = GREATEST(units - p_drawn, 0), hold_micros = GREATEST(hold_micros - coalesce(p_hold, 0), 0)
     WHERE id = p_lease
    RETURNING budget_id, binding_id, hold_currency INTO r;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    UPDATE budgets
       SET reserved_units = GREATEST(reserved_units - p_drawn, 0), used_units = used_units + p_actual, updated_at = now()
     WHERE id = r.budget_id
    RETURNING workspace_id INTO ws;
    IF r.binding_id IS NOT NULL THEN
        UPDATE provider_bindings p
           SET reserved_units = CASE WHEN p.id = r.binding_id THEN GREATEST(p.reserved_units - p_drawn, 0) ELSE p.reserved_units END,
               used_units = CASE WHEN p.id = coalesce(p_used_binding, r.binding_id) THEN p.used_units + p_actual ELSE p.used_units END,
               updated_at = now()
         WHERE p.id IN (SELECT id FROM provider_bindings WHERE id IN (r.binding_id, coalesce(p_used_binding, r.binding_id)) ORDER BY id FOR UPDATE);
    END IF;
    IF r.hold_currency IS NOT NULL AND ws IS NOT NULL THEN
        PERFORM capstan_wallet_lock(ws);
        IF coalesce(p_hold, 0) > 0 THEN
            UPDATE wallet_balances SET held_micros = GREATEST(held_micros - p_hold, 0), updated_at = now()
             WHERE workspace_id = ws AND currency = r.hold_currency;
        END IF;
        IF coalesce(p_charge, 0) > 0 THEN
            PERFORM capstan_wallet_debit(ws, r.hold_currency, p_charge, 'usage', 'capability_invocation', p_invocation, now());
        END IF;
    END IF;
    RETURN TRUE;
END
$$;

-- The record batch's settlements, budget rows locked in id order (as reservations and capstan_settle_batch do).
CREATE FUNCTION capstan_settle_drawn_batch(
    p_leases TEXT[],
    p_invocations TEXT[],
    p_drawn DOUBLE PRECISION[],
    p_actual DOUBLE PRECISION[],
    p_used_bindings TEXT[],
    p_holds BIGINT[],
    p_charges BIGINT[]
) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    settled INTEGER := 0;
    rec RECORD;
BEGIN
    FOR rec IN
        SELECT x.*
          FROM unnest(p_leases, p_invocations, p_drawn, p_actual, p_used_bindings, p_holds, p_charges)
               AS x(lease, inv, drawn, actual, used, hold, charge)
          LEFT JOIN budget_reservations r ON r.id = x.lease
         ORDER BY r.budget_id NULLS LAST, x.lease, x.inv
    LOOP
        IF capstan_settle_drawn(rec.lease, rec.inv, rec.drawn, rec.actual, rec.used, rec.hold, rec.charge) THEN
            settled := settled + 1;
        END IF;
    END LOOP;
    RETURN settled;
END
$$;
