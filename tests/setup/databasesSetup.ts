// The api and reliability projects' global setup: a jest run's databases are dropped together at
// its end (tests/setup/databasesTeardown.ts; `dropWithRun` in tests/helpers/postgres.ts).
import { startRun } from '../helpers/postgres';

export default function databasesSetup(): void {
  startRun();
}
