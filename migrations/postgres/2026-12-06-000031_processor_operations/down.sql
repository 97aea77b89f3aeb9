DROP TABLE processor_operations;
