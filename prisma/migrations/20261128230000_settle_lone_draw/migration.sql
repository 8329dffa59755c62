-- Issue #34 item 2: a lone draw (every record batch at concurrency 1) is settled
-- by capstan_settle_drawn directly. The batch function ordered its loop with a
-- query that joined the draws to budget_reservations (a hash join over the whole
-- table) and then looped in PL/pgSQL: 0.27 ms per one-draw batch against 0.12 ms
-- for the settlement alone (pgbench on this machine, synchronous_commit off).
-- Larger batches keep the ordered loop: a set-based version (one UPDATE per
-- table over the batch's sums) was measured too and cost more below about six
-- draws per batch, so it was not kept (docs/decisions.md "Invocations on the hot
-- path, the record floor, webhooks that keep up").
CREATE OR REPLACE FUNCTION capstan_settle_drawn_batch(
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
    IF coalesce(cardinality(p_leases), 0) = 0 THEN
        RETURN 0;
    END IF;
    IF cardinality(p_leases) = 1 THEN
        RETURN CASE WHEN capstan_settle_drawn(p_leases[1], p_invocations[1], p_drawn[1], p_actual[1], p_used_bindings[1],
                                              p_holds[1], p_charges[1]) THEN 1 ELSE 0 END;
    END IF;
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
