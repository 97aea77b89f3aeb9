DROP INDEX processor_operations_of_reference;
DROP TABLE processor_events;
