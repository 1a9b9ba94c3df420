import type { Kysely, Transaction } from 'kysely';
import { PERSONAL_FUNCTION_LIMIT, TEAM_FUNCTION_LIMIT } from '../../contract/plans';
import type { CustomFunctionsTable, Database, Engine } from '../db/types';
import { FUNCTION_NAME, INPUT_PLACEHOLDER } from '../../contract/functions';
import { ApiError } from '../errors';
import { countUnderLock, type Owner } from './locks';
import { managesTeam } from '../../contract/roles';
import { actingIn, forbidden, membershipOf } from './teams';
import { uuidV7 } from './uuidv7';

/**
 * Custom functions (decisions.md, "Professional's promises"): saved prompts the add-on offers as
 * cell functions, personal (at most 25 a person) or a team's (at most 100 a team, made, changed
 * and deleted by its owner and admins, run by every member). A limit holds for requests sent at
 * once: each create takes its owner's lock first (the person's or the team's row, `for update` on
 * PostgreSQL; SQLite runs one transaction at a time), then counts, then inserts.
 */

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

export type FunctionScope = CustomFunctionsTable['scope'];

export interface FunctionFields {
  name: string;
  task: string;
  prompt: string;
  description: string;
}

export interface WireFunction {
  id: string;
  name: string;
  task: string;
  prompt: string;
  description: string;
  scope: FunctionScope;
  created_at: string;
  updated_at: string;
}

export { FUNCTION_NAME, INPUT_PLACEHOLDER };

export function toWireFunction(row: CustomFunctionsTable): WireFunction {
  const { id, name, task, prompt, description, scope } = row;
  return { id, name, task, prompt, description, scope, created_at: new Date(Number(row.created_at)).toISOString(), updated_at: new Date(Number(row.updated_at)).toISOString() };
}

/** A prompt must say where the cells go. */
export function checkPrompt(prompt: string): void {
  if (!prompt.includes(INPUT_PLACEHOLDER)) {
    throw new ApiError(400, 'invalid_input', `The prompt must hold ${INPUT_PLACEHOLDER} where the selected cells go.`, { field: 'prompt' });
  }
}

const exists = (name: string) => new ApiError(409, 'function_exists', `There is already a function named ${name}. Choose another name.`, { field: 'name' });
export const functionNotFound = () => new ApiError(404, 'function_not_found', 'There is no such function.');

/** Whether a write failed on the owner-and-name unique constraint, on either engine. */
function nameTaken(error: unknown): boolean {
  const { message, constraint } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; constraint?: unknown };
  return constraint === 'custom_functions_owner_name' || (typeof message === 'string' && message.includes('custom_functions.owner_key'));
}

/** Creates a function under the caller or, for `team`, their team (admins only); 409 on a taken name or a full limit. */
export async function createFunction(db: Db, engine: Engine, userId: string, scope: FunctionScope, fields: FunctionFields, now: number): Promise<WireFunction> {
  checkPrompt(fields.prompt);
  try {
    return await db.transaction().execute(async (trx) => {
      let owner: Owner = { table: 'users', id: userId };
      let limit = PERSONAL_FUNCTION_LIMIT;
      if (scope === 'team') {
        const acting = await actingIn(trx, engine, userId, null);
        if (!managesTeam(acting.role)) throw forbidden('Only the team’s owner or an admin can make a team function.');
        owner = { table: 'teams', id: acting.team.id };
        limit = TEAM_FUNCTION_LIMIT;
      }
      const ownerKey = `${owner.table === 'teams' ? 'team' : 'user'}:${owner.id}`;
      const teamId = owner.table === 'teams' ? owner.id : null;
      const count = async () =>
        Number((await trx.selectFrom('custom_functions').select((eb) => eb.fn.countAll<number>().as('count')).where('owner_key', '=', ownerKey).executeTakeFirstOrThrow()).count);
      await countUnderLock(trx, engine, owner, count, limit, () =>
        new ApiError(409, 'function_limit_reached', `${scope === 'team' ? 'The team has' : 'You have'} ${limit} functions, the most there can be. Delete one to make another.`),
      );
      const row: CustomFunctionsTable = { id: uuidV7(), owner_key: ownerKey, user_id: userId, team_id: teamId, scope, ...fields, created_at: now, updated_at: now };
      await trx.insertInto('custom_functions').values(row).execute();
      return toWireFunction(row);
    });
  } catch (error) {
    if (nameTaken(error)) throw exists(fields.name);
    throw error;
  }
}

/** The caller's own functions and their team's, by name. */
export async function listFunctions(db: Db, userId: string): Promise<CustomFunctionsTable[]> {
  const membership = await membershipOf(db, userId);
  const owners = [`user:${userId}`, ...(membership ? [`team:${membership.team.id}`] : [])];
  return db.selectFrom('custom_functions').selectAll().where('owner_key', 'in', owners).orderBy('name').orderBy('scope').execute();
}

/** The function the caller runs by this name: their own first, then their team's. */
export async function functionToRun(db: Db, userId: string, name: string): Promise<CustomFunctionsTable> {
  const found = (await listFunctions(db, userId)).filter((row) => row.name === name);
  const row = found.find((one) => one.scope === 'personal') ?? found[0];
  if (!row) throw functionNotFound();
  return row;
}

/** A function the caller may change or delete: their own, or as the team's owner or admin, their team's; 404 / 403 otherwise. */
async function writable(trx: Trx, engine: Engine, userId: string, id: string): Promise<CustomFunctionsTable> {
  const row = await trx.selectFrom('custom_functions').selectAll().where('id', '=', id).executeTakeFirst();
  if (row?.owner_key === `user:${userId}`) return row;
  if (row?.team_id) {
    const membership = await membershipOf(trx, userId);
    if (membership?.team.id === row.team_id) {
      if (!managesTeam(membership.role)) throw forbidden('Only the team’s owner or an admin can change a team function.');
      return row;
    }
  }
  throw functionNotFound();
}

export async function updateFunction(db: Db, engine: Engine, userId: string, id: string, changes: Partial<FunctionFields>, now: number): Promise<WireFunction> {
  if (changes.prompt !== undefined) checkPrompt(changes.prompt);
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await writable(trx, engine, userId, id);
      const updated = { ...row, ...changes, updated_at: now };
      await trx.updateTable('custom_functions').set({ ...changes, updated_at: now }).where('id', '=', id).execute();
      return toWireFunction(updated);
    });
  } catch (error) {
    if (nameTaken(error)) throw exists(changes.name!);
    throw error;
  }
}

export async function deleteFunction(db: Db, engine: Engine, userId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await writable(trx, engine, userId, id);
    await trx.deleteFrom('custom_functions').where('id', '=', id).execute();
  });
}
