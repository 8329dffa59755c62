-- The outbox dispatcher's batch in one statement (issue #34; docs/decisions.md "Workers that keep up"): the advisory
-- lock, the claim in write order, one delivery per matching active subscription and the mark, in a function the
-- dispatcher calls with one round trip instead of a seven-statement transaction. A VOLATILE plpgsql function takes a
-- new snapshot for each statement, so the claim sees what the previous holder of the lock committed, as before.
-- Its commit does not wait for the WAL flush (a lost dispatch is claimed and done again, see dispatch.service.ts).
-- Delivery ids: one ULID for the batch, then a counter in its last five characters, so the ids of a batch sort in
-- the order their deliveries were written (events by seq, then subscriptions by id), as the application's ids do.
-- plan_cache_mode: every call plans its statements for the batch it has (about a millisecond a batch). A PL/pgSQL
-- function otherwise keeps a generic plan per session, made when the outbox may still have been nearly empty: the
-- bench's first run of this function kept a sequential scan of the outbox for the mark and a scan of all the
-- workspace's events for the deliveries, and a batch of 1000 took a second instead of 28 ms.
CREATE FUNCTION capstan_dispatch(p_limit INTEGER, p_lock BIGINT, p_now TIMESTAMPTZ)
RETURNS TABLE (events INTEGER, deliveries INTEGER, created TIMESTAMPTZ[])
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    alphabet CONSTANT TEXT := '0123456789abcdefghjkmnpqrstvwxyz';
    v_ids TEXT[];
    v_created TIMESTAMPTZ[];
    v_base TEXT;
    v_n INTEGER := 0;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_advisory_xact_lock(p_lock);
    SELECT array_agg(c.id ORDER BY c.seq), array_agg(c.created_at ORDER BY c.seq)
      INTO v_ids, v_created
      FROM (SELECT o.id, o.seq, o.created_at FROM outbox_events o
             WHERE o.dispatched_at IS NULL ORDER BY o.seq LIMIT p_limit FOR UPDATE SKIP LOCKED) c;
    IF v_ids IS NULL THEN
        RETURN QUERY SELECT 0, 0, ARRAY[]::TIMESTAMPTZ[];
        RETURN;
    END IF;
    v_base := left(capstan_ulid(), 21);
    INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, status, next_attempt_at, ordering_key, event_seq)
    SELECT 'whk_' || v_base
             || substr(alphabet, ((m.k >> 20) & 31) + 1, 1) || substr(alphabet, ((m.k >> 15) & 31) + 1, 1)
             || substr(alphabet, ((m.k >> 10) & 31) + 1, 1) || substr(alphabet, ((m.k >> 5) & 31) + 1, 1)
             || substr(alphabet, (m.k & 31) + 1, 1),
           m.workspace_id, m.sub_id, m.event_id, 'pending', p_now, m.okey, m.seq
      FROM (SELECT (row_number() OVER (ORDER BY e.seq, s.id))::INTEGER - 1 AS k,
                   e.workspace_id, s.id AS sub_id, e.id AS event_id, COALESCE(e.subject, e.source) AS okey, e.seq
              FROM outbox_events e
              JOIN event_subscriptions s
                ON s.workspace_id = e.workspace_id AND s.status = 'active' AND s.created_at <= e.created_at
               AND (s.event_types ? '*' OR s.event_types ? e.type)
             WHERE e.id = ANY (v_ids)) m;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    UPDATE outbox_events SET dispatched_at = p_now WHERE id = ANY (v_ids);
    RETURN QUERY SELECT cardinality(v_ids), v_n, v_created;
END
$$;
