import { Type } from '@sinclair/typebox';

/** The error body every route may answer with (see errors.ts). */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      field: Type.Optional(Type.String()),
    }),
  },
  { $id: 'Error' },
);
