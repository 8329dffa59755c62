-- Console (#21): products, webhooks (event subscriptions) and provider bindings get a name;
-- the names of products, service identities, webhooks and bindings are unique per workspace,
-- case-insensitively. Revoked service identities and bindings stay readable but free their
-- name (partial indexes), so "ci" can be created again after the old "ci" is revoked.
-- Backfill: a name derived from the row (repository, description or URL host, provider and
-- capability); where two rows of a workspace would share it, every row after the first gets
-- its id appended, which cannot collide.

ALTER TABLE products ADD COLUMN name TEXT;
ALTER TABLE event_subscriptions ADD COLUMN name TEXT;
ALTER TABLE provider_bindings ADD COLUMN name TEXT;

WITH base AS (
  SELECT id, workspace_id, created_at,
         left(coalesce(nullif(regexp_replace(regexp_replace(repo_url, '(\.git)?/*$', ''), '^.*[/:]', ''), ''), 'product'), 60) AS n
    FROM products
), ranked AS (
  SELECT id, n, row_number() OVER (PARTITION BY workspace_id, lower(n) ORDER BY created_at, id) AS k FROM base
)
UPDATE products p SET name = CASE WHEN r.k = 1 THEN r.n ELSE r.n || ' (' || p.id || ')' END
  FROM ranked r WHERE r.id = p.id;

WITH base AS (
  SELECT id, workspace_id, created_at,
         left(coalesce(nullif(btrim(description), ''), substring(url from '^[a-zA-Z]+://([^/:?#]+)'), 'webhook'), 60) AS n
    FROM event_subscriptions
), ranked AS (
  SELECT id, n, row_number() OVER (PARTITION BY workspace_id, lower(n) ORDER BY created_at, id) AS k FROM base
)
UPDATE event_subscriptions s SET name = CASE WHEN r.k = 1 THEN r.n ELSE r.n || ' (' || s.id || ')' END
  FROM ranked r WHERE r.id = s.id;

WITH base AS (
  SELECT id, workspace_id, created_at, left(provider || ' ' || capability, 60) AS n FROM provider_bindings
), ranked AS (
  SELECT id, n, row_number() OVER (PARTITION BY workspace_id, lower(n) ORDER BY created_at, id) AS k FROM base
)
UPDATE provider_bindings b SET name = CASE WHEN r.k = 1 THEN r.n ELSE r.n || ' (' || b.id || ')' END
  FROM ranked r WHERE r.id = b.id;

-- Service identities already had a (free, duplicable) name: de-duplicate the live ones.
WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY workspace_id, lower(name) ORDER BY created_at, id) AS k
    FROM service_identities WHERE status <> 'revoked'
)
UPDATE service_identities s SET name = left(s.name, 60) || ' (' || s.id || ')'
  FROM ranked r WHERE r.id = s.id AND r.k > 1;

ALTER TABLE products ALTER COLUMN name SET NOT NULL;
ALTER TABLE event_subscriptions ALTER COLUMN name SET NOT NULL;
ALTER TABLE provider_bindings ALTER COLUMN name SET NOT NULL;

CREATE UNIQUE INDEX products_workspace_name_key ON products (workspace_id, lower(name));
CREATE UNIQUE INDEX event_subscriptions_workspace_name_key ON event_subscriptions (workspace_id, lower(name));
CREATE UNIQUE INDEX provider_bindings_workspace_name_key ON provider_bindings (workspace_id, lower(name)) WHERE status <> 'revoked';
CREATE UNIQUE INDEX service_identities_workspace_name_key ON service_identities (workspace_id, lower(name)) WHERE status <> 'revoked';
