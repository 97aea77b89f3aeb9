DROP TABLE pages;
DROP TABLE prices;
DROP TABLE products;
