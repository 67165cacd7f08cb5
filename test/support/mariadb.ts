import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

/** The MariaDB/MySQL server the tests use; the machines run one on 127.0.0.1:3306 (root, no password). */
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

export interface FreshMysqlDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function adminOptions() {
  const u = new URL(TEST_MYSQL_URL);
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password) || undefined,
  };
}

/** A new, empty database for one test file, so files run in parallel without seeing each other's tables. */
export async function freshMysql(label = 'test'): Promise<FreshMysqlDatabase> {
  const name = `t_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = await mysql.createConnection(adminOptions());
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_MYSQL_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = await mysql.createConnection(adminOptions());
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A plain connection to a fresh database, for setting up tables and looking at the server's process list. */
export async function mysqlConnection(db: FreshMysqlDatabase): Promise<mysql.Connection> {
  return mysql.createConnection({ ...adminOptions(), database: db.name, multipleStatements: true });
}
