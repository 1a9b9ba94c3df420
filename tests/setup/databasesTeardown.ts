// The api and reliability projects' global teardown: drops the databases the run left for its end.
import { dropRunDatabases } from '../helpers/postgres';

export default async function databasesTeardown(): Promise<void> {
  await dropRunDatabases();
}
