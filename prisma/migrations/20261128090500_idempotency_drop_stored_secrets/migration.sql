-- Issue #33 item 1: managed-resource creates stored before one-time secrets were derived from the
-- output schema kept the database password in the replayable response. Drop it from those rows
-- (the rest of the replay stays valid; a replay now answers without the secret).
UPDATE "idempotency_keys"
   SET "response_body" = ("response_body"::jsonb - 'secret')::text
 WHERE "method" = 'POST'
   AND "path" ~ '^/v1/workspaces/[^/]+/managed-resources$'
   AND "response_status" BETWEEN 200 AND 299
   AND "response_body" LIKE '{%';
