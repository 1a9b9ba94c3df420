import { Field, Input, type InputProps } from '@chakra-ui/react';
import type { FormikProps } from 'formik';
import { useRef, type ReactNode } from 'react';

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

/** A form that validates with Formik on submit and focuses the first invalid field. */
export function ValidatedForm<V>({ form, children }: { form: FormikProps<V>; children: ReactNode }) {
  const ref = useRef<HTMLFormElement>(null);
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
