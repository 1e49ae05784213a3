-- The parser fixture: every reader of queries.sql (Go db.Parse, Java Sql.parse,
-- Python bankbench.queries.parse) must cut this file into queries.json.
-- This header belongs to no statement.

-- name: plain
SELECT 1

-- name: spaced   	
-- A comment inside a statement is part of it, and so are blank lines
-- between its lines; blank lines around it are not.

SELECT a,
       b
FROM t WHERE x = $1


--name: not_a_marker (no space after the dashes) stays in the text above
  -- name: indented is no marker either
-- name: last
SELECT 'no newline at the end' WHERE y = $1 AND z = $2