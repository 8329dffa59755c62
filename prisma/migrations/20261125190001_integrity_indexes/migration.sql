-- Schema integrity (#15 item 8), second part: an index for every id filter of a list operation that had none.
-- GET deployments ?revision_id= ?release_id= ?product_id=, GET surfaces ?product_id=, GET releases ?version_id=.
-- Enum-like filters (status, state, outcome, kind, capability) stay served by (workspace_id, created_at, id).
CREATE INDEX deployments_revision_id_idx ON deployments (revision_id);
CREATE INDEX deployments_release_id_idx ON deployments (release_id);
CREATE INDEX deployments_product_id_idx ON deployments (product_id);
CREATE INDEX surfaces_product_id_idx ON surfaces (product_id);
CREATE INDEX releases_version_id_idx ON releases (version_id);
