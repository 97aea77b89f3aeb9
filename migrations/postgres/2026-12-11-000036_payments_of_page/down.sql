DROP INDEX payments_of_page;
ALTER TABLE payments DROP COLUMN page_id;
