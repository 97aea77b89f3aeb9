-- The retired digests cannot be restored; nothing to undo.
SELECT 1;
