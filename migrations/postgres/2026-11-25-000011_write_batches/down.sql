DROP FUNCTION expect_one_row(bigint);
