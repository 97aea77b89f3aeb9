-- A batch of writes sent as one statement (crates/adapters/src/db/write_batch.rs) checks each
-- versioned update's row count with this function: no row means another change won the race, and
-- the error undoes the whole statement, every write of the batch with it, as a serialization
-- failure (which the service reports as a conflict).
CREATE FUNCTION expect_one_row(changed bigint) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    IF changed <> 1 THEN
        RAISE EXCEPTION 'a versioned update changed % rows, not 1: another change won', changed
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN 1;
END
$$;
