package store

// Classify exposes classify to the tests of package store_test.
var Classify = classify
