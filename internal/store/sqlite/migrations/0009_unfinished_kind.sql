-- Recovery reads the unfinished executions of one kind (each runner its
-- own), oldest first: ListUnfinished filters on kind and pages by seq. The
-- unfiltered partial index it replaces has no reader left.
CREATE INDEX executions_unfinished_kind ON executions (kind, seq) WHERE status IN ('queued', 'running', 'waiting');
DROP INDEX executions_unfinished;
