-- The dispatcher's claim walks the undispatched index in seq order and stops at its limit (issue #34;
-- docs/decisions.md "Hot statements keep key-driven plans"). A bitmap scan of that partial index read every entry
-- still in it, the entries of events dispatched since the last vacuum included (4,417 entries and 395 buffers for 10
-- live events in the surface bench), and sorted what it found; an index scan stops after the live ones it needs and
-- marks the dead entries it passes, so the next claim skips them. The function's other statements keep hash joins
-- (planned per call for the batch at hand) even in the hot pool's sessions, which plan nested loops only.
ALTER FUNCTION capstan_dispatch(INTEGER, BIGINT, TIMESTAMPTZ)
    SET enable_bitmapscan = off
    SET enable_hashjoin = on
    SET enable_mergejoin = on;
