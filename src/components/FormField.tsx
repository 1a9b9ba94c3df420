import { Field, Input, type InputProps } from '@chakra-ui/react';
import { validateYupSchema, yupToFormErrors, type FormikErrors, type FormikProps, type FormikValues } from 'formik';
import { useEffect, useRef, type ReactNode } from 'react';
import type { Schema } from 'yup';
import type { MessageKey } from '../../machines/shared/messages';
import { say, type Sections } from '../content/say';
import { useEarlyInput } from '../lib/useEarlyInput';

interface Props<V> extends Omit<InputProps, 'form'> {
  form: FormikProps<V>;
  name: keyof V & string;
  label: string;
  /** Clear this field's error as soon as it is edited (the register form's rule). */
  clearErrorOnChange?: boolean;
}

/** A labelled input bound to a Formik field, with its error under it. */
export function FormField<V>({ form, name, label, clearErrorOnChange, required, ...input }: Props<V>) {
  const error = form.submitCount > 0 || form.touched[name] ? (form.errors[name] as string | undefined) : undefined;
  return (
    <Field.Root invalid={Boolean(error)} required={required}>
      <Field.Label>
        {label}
        {required && <Field.RequiredIndicator />}
      </Field.Label>
      <Input
        name={name}
        value={String(form.values[name] ?? '')}
        onChange={(event) => {
          form.handleChange(event);
          if (clearErrorOnChange) form.setFieldError(name, undefined);
        }}
        onBlur={form.handleBlur}
        {...input}
      />
      <Field.ErrorText>{error}</Field.ErrorText>
    </Field.Root>
  );
}

/**
 * Submits a Formik form (which refuses while any field is invalid) and moves focus to the first
 * field, in form order, that has an error.
 */
export async function submitAndFocus<V>(form: FormikProps<V>, formElement: HTMLFormElement | null): Promise<void> {
  const errors = (await form.validateForm()) as Record<string, unknown>;
  await form.submitForm();
  const fields = Array.from(formElement?.elements ?? []) as HTMLInputElement[];
  fields.find((field) => field.name && errors[field.name])?.focus();
}

interface ValidatedFormProps<V> {
  form: FormikProps<V>;
  /** Loads the form's rules once it is on screen, so that the first check need not wait for them. */
  preload?: () => unknown;
  children: ReactNode;
}

/**
 * A form that validates with Formik on submit and focuses the first invalid field. On a prerendered
 * page, what was typed and sent before the app took over is kept and sent.
 */
export function ValidatedForm<V>({ form, preload, children }: ValidatedFormProps<V>) {
  const ref = useRef<HTMLFormElement>(null);
  useEarlyInput(ref, Object.keys(form.initialValues as object) as Array<keyof V & string>, (typed) =>
    form.setValues((values) => ({ ...values, ...typed })),
  );
  useEffect(() => {
    void preload?.();
  }, [preload]);
  return (
    <form
      ref={ref}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submitAndFocus(form, ref.current);
      }}
    >
      {children}
    </form>
  );
}

/** A Formik `validate` for a yup schema loaded on first use, and a way to load it sooner. */
export interface SchemaValidation<V> {
  (values: V): Promise<FormikErrors<V>>;
  preload: () => Promise<unknown>;
}

/**
 * A Formik `validate` that checks the yup schema `load` resolves to, as `validationSchema` would,
 * loading it on first use: yup is a sixth of a form page's JavaScript, and showing the form
 * needs none of it. The schemas name their messages (machines/shared/messages.ts); the errors
 * are worded in `sections` of the catalogue.
 */
export function validateWithSchema<V extends FormikValues>(load: () => Promise<Pick<Schema, 'validate'>>, sections: Sections): SchemaValidation<V> {
  let schema: Promise<Pick<Schema, 'validate'>> | undefined;
  const preload = () => (schema ??= load());
  const validate = async (values: V) => {
    try {
      await validateYupSchema(values, await preload());
      return {};
    } catch (error) {
      // Formik's own rule for telling a failed check from a failure to check.
      if ((error as Error | null)?.name === 'ValidationError') {
        const errors = yupToFormErrors<Record<string, MessageKey>>(error);
        return Object.fromEntries(Object.entries(errors).map(([field, key]) => [field, say(key as MessageKey, sections)])) as FormikErrors<V>;
      }
      throw error;
    }
  };
  return Object.assign(validate, { preload });
}
