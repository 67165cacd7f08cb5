import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bindParameters, ParameterError } from '../../src/dashboard/sql/parameters.ts';
import { checkStatement, readOnlyViolation, StatementError } from '../../src/dashboard/sql/statement.ts';

const pg = (sql: string, params: Record<string, unknown> = {}) => bindParameters(sql, params, 'postgres');
const my = (sql: string, params: Record<string, unknown> = {}) => bindParameters(sql, params, 'mysql');

describe('named parameters, PostgreSQL', () => {
  it('turns :name into $n and keeps values apart from the text', () => {
    assert.deepEqual(pg('SELECT * FROM t WHERE a = :a AND b = :b', { a: 1, b: "x'; DROP TABLE t; --" }), {
      sql: 'SELECT * FROM t WHERE a = $1 AND b = $2',
      values: [1, "x'; DROP TABLE t; --"],
    });
  });
  it('gives a repeated name one placeholder', () => {
    assert.deepEqual(pg('SELECT :a, :b, :a', { a: 1, b: 2 }), { sql: 'SELECT $1, $2, $1', values: [1, 2] });
  });
  it('leaves ::casts alone, also right after a parameter', () => {
    assert.deepEqual(pg('SELECT :a::text, x::int, :b :: int', { a: 1, b: 2 }), {
      sql: 'SELECT $1::text, x::int, $2 :: int',
      values: [1, 2],
    });
  });
  it('leaves :a::text alone when a parameter is named like the type', () => {
    assert.deepEqual(pg('SELECT :a::text', { a: 1 }), { sql: 'SELECT $1::text', values: [1] });
    assert.throws(() => pg('SELECT :a::text', { a: 1, text: 2 }), /"text" not used/);
  });
  it('skips string literals, with doubled quotes', () => {
    assert.deepEqual(pg("SELECT ':a', 'it''s :b', :c", { c: 1 }), { sql: "SELECT ':a', 'it''s :b', $1", values: [1] });
  });
  it("skips E'...' literals with backslash escapes", () => {
    assert.deepEqual(pg("SELECT E'\\' :a', :b", { b: 1 }), { sql: "SELECT E'\\' :a', $1", values: [1] });
  });
  it("does not give a plain '...' literal backslash escapes", () => {
    assert.deepEqual(pg("SELECT 'C:\\', :b", { b: 1 }), { sql: "SELECT 'C:\\', $1", values: [1] });
  });
  it('skips dollar-quoted bodies, tagged or not', () => {
    assert.deepEqual(pg('SELECT $$ :a $$, $fn$ :a ; $$ $fn$, :b', { b: 1 }), {
      sql: 'SELECT $$ :a $$, $fn$ :a ; $$ $fn$, $1',
      values: [1],
    });
  });
  it('skips quoted identifiers', () => {
    assert.deepEqual(pg('SELECT "col:a", "x"":b", :c', { c: 1 }), { sql: 'SELECT "col:a", "x"":b", $1', values: [1] });
  });
  it('skips line comments and nested block comments', () => {
    assert.deepEqual(pg('SELECT :a -- :b\n, /* :c /* :d */ :e */ 1', { a: 1 }), {
      sql: 'SELECT $1 -- :b\n, /* :c /* :d */ :e */ 1',
      values: [1],
    });
  });
  it('leaves := and array slices alone', () => {
    assert.deepEqual(pg('SELECT arr[1:n], arr[lo:hi], f(x := 1), :p', { p: 1 }), {
      sql: 'SELECT arr[1:n], arr[lo:hi], f(x := 1), $1',
      values: [1],
    });
  });
  it('reads @name as a parameter like :name: one not given is missing, named', () => {
    assert.deepEqual(pg('SELECT @x, @ -5, :x', { x: 1 }), { sql: 'SELECT $1, @ -5, $1', values: [1] });
    assert.throws(() => pg('SELECT @x, @y', { x: 1 }), {
      name: 'ParameterError',
      message: 'parameters: missing "y" used in the query; PostgreSQL\'s absolute-value operator takes a space: @ y',
    });
  });
  it('leaves the jsonb ? operator alone', () => {
    assert.deepEqual(pg("SELECT data ? 'k', :a", { a: 1 }), { sql: "SELECT data ? 'k', $1", values: [1] });
  });
  it('refuses positional $1 written by the caller', () => {
    assert.throws(() => pg('SELECT $1'), ParameterError);
    assert.deepEqual(pg('SELECT a$1 FROM t'), { sql: 'SELECT a$1 FROM t', values: [] });
  });
  it('names every missing parameter', () => {
    assert.throws(
      () => pg('SELECT :a, :b, :a', {}),
      (e: Error) => e instanceof ParameterError && /missing "a", "b"/.test(e.message),
    );
  });
  it('names every unused parameter, including one only in a comment or literal', () => {
    assert.throws(() => pg("SELECT ':a' -- :b", { a: 1, b: 2 }), /"a", "b" not used/);
  });
  it('leaves a text with no parameters as it was', () => {
    assert.deepEqual(pg("SELECT 'x' /* y */"), { sql: "SELECT 'x' /* y */", values: [] });
  });
  it('treats an unterminated literal as running to the end', () => {
    assert.deepEqual(pg("SELECT :a, 'oops :b", { a: 1 }), { sql: "SELECT $1, 'oops :b", values: [1] });
  });
});

describe('named parameters, MySQL', () => {
  it('turns each occurrence into ? with the value repeated', () => {
    assert.deepEqual(my('SELECT :a, :b, :a', { a: 1, b: 2 }), { sql: 'SELECT ?, ?, ?', values: [1, 2, 1] });
  });
  it('skips backticks, both quote kinds with backslash escapes, and # comments', () => {
    assert.deepEqual(my('SELECT `a:b`, \'x\\\' :c\', "y\\" :d", :e # :f\n', { e: 1 }), {
      sql: 'SELECT `a:b`, \'x\\\' :c\', "y\\" :d", ? # :f\n',
      values: [1],
    });
  });
  it('reads --x as two minus signs and -- x as a comment', () => {
    assert.deepEqual(my('SELECT 1 --:a\n, 2 -- :b\n', { a: 3 }), { sql: 'SELECT 1 --?\n, 2 -- :b\n', values: [3] });
  });
  it('leaves quoted user variables, := and @@system variables alone', () => {
    assert.deepEqual(my('SELECT @`v` := 1, @\'w\', @"x", @@version, @@session.time_zone, @p', { p: 1 }), {
      sql: 'SELECT @`v` := 1, @\'w\', @"x", @@version, @@session.time_zone, ?',
      values: [1],
    });
  });
  it('reads an unquoted @name as a parameter: one not given is missing, named, with how to write a variable', () => {
    assert.throws(() => my('SELECT * FROM t WHERE id = @wanted'), {
      name: 'ParameterError',
      message: 'parameters: missing "wanted" used in the query; a MySQL user variable is written quoted: @`wanted`',
    });
    assert.throws(() => my('SELECT :a, @b'), /^ParameterError: parameters: missing "a", "b" used in the query; /);
  });
  it('does not read @@name as a parameter even when a parameter has that name', () => {
    assert.throws(() => my('SELECT @@version', { version: 1 }), /"version" not used/);
  });
  it('does not treat block comments as nested', () => {
    assert.deepEqual(my('SELECT /* /* */ :a */', { a: 1 }), { sql: 'SELECT /* /* */ ? */', values: [1] });
  });
  it('refuses a bare ? placeholder but not one in a literal', () => {
    assert.throws(() => my('SELECT ?'), ParameterError);
    assert.deepEqual(my("SELECT '?'"), { sql: "SELECT '?'", values: [] });
  });
  it('does not know dollar quotes', () => {
    assert.throws(() => my('SELECT $$ :a $$'), /missing "a"/);
  });
});

describe('one statement', () => {
  const ok = ['SELECT 1', 'SELECT 1;', 'SELECT 1 ;  -- done\n', "SELECT ';'", 'SELECT $$;$$', 'SELECT 1 /* ; */'];
  for (const sql of ok) it(`accepts ${JSON.stringify(sql)}`, () => checkStatement(sql, 'postgres'));
  const bad = [
    'SELECT 1; SELECT 2',
    'COMMIT; DELETE FROM t',
    ';',
    '',
    '  -- nothing',
    '; SELECT 1',
    'SELECT 1;;',
    "SELECT 1; 'x'",
    'BEGIN',
    'commit',
    'ROLLBACK',
    'START TRANSACTION',
  ];
  for (const sql of bad)
    it(`refuses ${JSON.stringify(sql)}`, () => assert.throws(() => checkStatement(sql, 'postgres'), StatementError));
  it('reads MySQL quoting when splitting', () => {
    checkStatement('SELECT "a;b", `c;d`', 'mysql');
    assert.throws(() => checkStatement('SELECT 1; # x\nSELECT 2', 'mysql'), StatementError);
  });
});

describe('read-only pre-check', () => {
  const reads = [
    'SELECT * FROM t',
    '  /* hi */ select 1',
    '(SELECT 1)',
    'WITH x AS (SELECT 1) SELECT * FROM x',
    'VALUES (1)',
    'EXPLAIN SELECT 1',
    'SHOW tables',
    'SELECT \'DELETE FROM t\', "update" FROM t',
    'SELECT updated_at, deleted FROM t',
    "SELECT replace(name, 'a', 'b'), truncate(1.5, 0) FROM t",
  ];
  for (const sql of reads)
    it(`lets ${JSON.stringify(sql)} through`, () => assert.equal(readOnlyViolation(sql, 'postgres'), undefined));
  const writes: [string, RegExp][] = [
    ['DELETE FROM t', /DELETE/],
    ['insert into t values (1)', /INSERT/],
    ['UPDATE t SET a = 1', /UPDATE/],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', /DELETE/],
    ['SELECT * INTO newtab FROM t', /INTO/],
    ['SELECT * FROM t FOR UPDATE', /UPDATE/],
    ['SELECT * FROM t FOR SHARE', /FOR SHARE/],
    ['SELECT * FROM t FOR NO KEY UPDATE', /FOR NO/],
    ['SELECT * FROM t LOCK IN SHARE MODE', /LOCK IN SHARE MODE/],
    ['EXPLAIN ANALYZE DELETE FROM t', /DELETE/],
    ['CREATE TABLE x (a int)', /CREATE/],
    ['DROP TABLE t', /DROP/],
    ['SET search_path = x', /SET/],
    ['CALL p()', /CALL/],
  ];
  for (const [sql, why] of writes)
    it(`stops ${JSON.stringify(sql)}`, () => assert.match(readOnlyViolation(sql, 'postgres') ?? '', why));
});

describe('MySQL and MariaDB executable comments are read as code', () => {
  const hidden: [string, RegExp][] = [
    ["SELECT 1 AS a /*! INTO OUTFILE '/tmp/x' */", /INTO/],
    ["SELECT 1 AS a /*!50110 INTO OUTFILE '/tmp/x' */", /INTO/],
    ["SELECT 1 AS a /*M! INTO DUMPFILE '/tmp/x' */", /INTO/],
    ["SELECT 1 AS a /*M!100101 INTO OUTFILE '/tmp/x' */", /INTO/],
    ["SELECT 1 /*!99999 INTO OUTFILE '/tmp/x' */", /INTO/],
    ['/*! DELETE FROM t */', /DELETE/],
    ['SELECT * FROM t /*!FOR UPDATE*/', /UPDATE/],
    ["SELECT 1 /*! INTO OUTFILE '*/' */", /INTO/],
  ];
  for (const [sql, why] of hidden)
    it(`stops ${JSON.stringify(sql)} on a read-only source`, () =>
      assert.match(readOnlyViolation(sql, 'mysql') ?? '', why));
  it('leaves plain comments and optimizer hints comments', () => {
    for (const sql of [
      "SELECT 1 /* INTO OUTFILE '/tmp/x' */",
      'SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1',
      'SELECT 1 # INTO',
    ])
      assert.equal(readOnlyViolation(sql, 'mysql'), undefined, sql);
  });
  it('is only a comment for PostgreSQL', () => {
    assert.equal(readOnlyViolation("SELECT 1 /*! INTO OUTFILE '/tmp/x' */", 'postgres'), undefined);
  });
  it('counts statements and binds parameters inside them', () => {
    assert.throws(() => checkStatement('SELECT 1 /*! ; DROP TABLE t */', 'mysql'), /only one statement/);
    checkStatement('SELECT 1 /*! ; */', 'postgres');
    assert.deepEqual(my('SELECT /*!50700 :a + */ 1', { a: 2 }), { sql: 'SELECT /*!50700 ? + */ 1', values: [2] });
    assert.throws(() => my('SELECT 1 /*M! + :b */'), /missing "b"/);
  });
});
