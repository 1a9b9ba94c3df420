import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TASKS, type Cell, type Task } from '../ai/provider';
import { findPlan } from '../../contract/plans';
import { DisplayText, ErrorSchema, MultilineText } from '../../contract/schemas';
import { createFunction, deleteFunction, functionToRun, INPUT_PLACEHOLDER, listFunctions, toWireFunction, updateFunction } from '../domain/customFunctions';
import { runQuery } from '../domain/queries';
import { credentialId } from '../plugins/auth';
import { PlanRequiredAnswer, requireFeature } from '../plugins/planFeatures';
import { MAX_CELLS, queryErrors, StreamableAnswer, streamOrPlain } from './query';

const NamePattern = '^[A-Z][A-Z0-9_]{0,29}$';
const TaskSchema = Type.Unsafe<Task>({ type: 'string', enum: [...TASKS] });
const Fields = {
  name: Type.String({ pattern: NamePattern, description: 'Upper-case letters, digits and _, starting with a letter, at most 30: the cell function `=SHEETMIND.NAME(…)`.' }),
  task: TaskSchema,
  prompt: MultilineText({ minLength: 1, maxLength: 2000, description: `Holds ${INPUT_PLACEHOLDER} where the selected cells go.` }),
  description: DisplayText({ maxLength: 500 }),
};

const FunctionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  task: TaskSchema,
  prompt: Type.String(),
  description: Type.String(),
  scope: Type.Union([Type.Literal('personal'), Type.Literal('team')]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const bearer = [{ bearer: [] }];
const answers = { 400: ErrorSchema, 401: ErrorSchema, 403: PlanRequiredAnswer, 404: ErrorSchema, 409: ErrorSchema };

/**
 * Custom functions (Professional and Team; decisions.md, "Professional's promises"). `run` answers
 * exactly as `/query` does (JSON, or streamed as server-sent events; an abandoned run refunded) and goes through the same lifecycle (`runQuery`): one query of the
 * function's task, within the plan's monthly queries and daily tokens. An API key or add-on session
 * with scope `query` may list and run functions (scopes.ts).
 */
export const functionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  const engine = app.database.engine;
  app.addHook('onRequest', app.authenticate);
  app.addHook('preHandler', requireFeature('custom_functions'));

  app.post(
    '/functions',
    {
      schema: {
        tags: ['functions'],
        summary: 'Save a custom function: personal (at most 25), or the team’s (admins; at most 100 a team)',
        security: bearer,
        body: Type.Object({ ...Fields, scope: Type.Optional(Type.Union([Type.Literal('personal'), Type.Literal('team')])) }, { additionalProperties: false }),
        response: { 201: FunctionSchema, ...answers },
      },
    },
    async (request, reply) => {
      const { scope = 'personal', ...fields } = request.body;
      const created = await createFunction(db, engine, request.auth!.userId, scope, { ...fields, task: fields.task as Task }, app.clock.now());
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/functions',
    { schema: { tags: ['functions'], summary: "The caller's functions and their team's, by name", security: bearer, response: { 200: Type.Object({ functions: Type.Array(FunctionSchema) }), ...answers } } },
    async (request) => ({ functions: (await listFunctions(db, request.auth!.userId)).map(toWireFunction) }),
  );

  app.patch(
    '/functions/:id',
    {
      schema: {
        tags: ['functions'],
        summary: 'Change a function (a team’s: its owner and admins)',
        security: bearer,
        params: Id,
        body: Type.Object(
          { name: Type.Optional(Fields.name), task: Type.Optional(TaskSchema), prompt: Type.Optional(Fields.prompt), description: Type.Optional(Fields.description) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: FunctionSchema, ...answers },
      },
    },
    async (request) => updateFunction(db, engine, request.auth!.userId, request.params.id, request.body as Record<string, string>, app.clock.now()),
  );

  app.delete(
    '/functions/:id',
    { schema: { tags: ['functions'], summary: 'Delete a function (a team’s: its owner and admins)', security: bearer, params: Id, response: { 204: Type.Null(), ...answers } } },
    async (request, reply) => {
      await deleteFunction(db, engine, request.auth!.userId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/functions/:name/run',
    {
      bodyLimit: 1024 * 1024 + 64 * 1024,
      schema: {
        tags: ['functions'],
        summary: 'Run a function on cells: answers as /query does, counted as one query of its task',
        security: bearer,
        params: Type.Object({ name: Type.String({ pattern: NamePattern }) }),
        body: Type.Object(
          {
            input: Type.Array(Type.Array(Type.Unsafe<Cell>({ type: ['string', 'number', 'boolean', 'null'] }), { maxItems: MAX_CELLS }), {
              maxItems: MAX_CELLS,
              description: 'The cells, row by row, as `data` of /query.',
            }),
            stream: Type.Optional(Type.Boolean({ description: 'Answer as server-sent events, as `Accept: text/event-stream` asks; exactly as /query streams.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: StreamableAnswer, ...queryErrors, 403: PlanRequiredAnswer, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const userId = request.auth!.userId;
      const fn = await functionToRun(db, userId, request.params.name);
      const data = request.body.input as Cell[][];
      return streamOrPlain(request, reply, request.body.stream, (signal, onDelta) =>
        runQuery(
          { database: app.database, ai: app.ai, clock: app.clock, log: request.log, abandonedAfterMs: 2 * app.config.ai.timeoutMs + 60_000 },
          {
            userId,
            credential: { kind: request.auth!.kind, id: credentialId(request.auth!) },
            plan: findPlan(request.currentUser!.plan)!,
            request: { task: fn.task as Task, prompt: fn.prompt.split(INPUT_PLACEHOLDER).join('the cells given as data'), data },
            key: undefined,
            elapsedMs: () => Math.max(1, Math.ceil(reply.elapsedTime)),
            signal,
            ...(onDelta ? { onDelta } : {}),
          },
        ),
      );
    },
  );
};
