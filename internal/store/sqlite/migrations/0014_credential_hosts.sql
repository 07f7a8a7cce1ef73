-- The hosts a vault credential is bound to (space separated, canonical; ''
-- for an unbound credential, as every record written before). The vault
-- seals them with the value, so a binding changed here alone does not open.
ALTER TABLE credentials ADD COLUMN hosts TEXT NOT NULL DEFAULT '';
