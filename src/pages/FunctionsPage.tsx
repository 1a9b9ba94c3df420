import { Alert, Badge, Button, Card, Code, Container, Field, Heading, HStack, Input, List, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { useEffect, useId, useState } from 'react';
import { TASKS } from '../../contract/functions';
import { planWith } from '../../contract/plans';
import { managesTeam } from '../../contract/roles';
import { functionEditorMachine } from '../../machines/functionEditor/functionEditor.machine';
import type { FunctionField } from '../../machines/functionEditor/functionEditor.schema';
import { functionsMachine } from '../../machines/functions/functions.machine';
import { tryQueryMachine } from '../../machines/tryQuery/tryQuery.machine';
import { useAuthRef } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { Confirm } from '../components/Confirm';
import { PageHeader } from '../components/PageHeader';
import { PageSpinner } from '../components/PageSpinner';
import { SectionCard } from '../components/SectionCard';
import { toastEffect } from '../components/Toaster';
import { TryItAnswer, TryItCard } from '../components/TryIt';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import type { CustomFunction, TeamRole } from '../../machines/shared/api';
import { createChartContext, useDeferredSelector, useSelector } from '../lib/chart';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.functions;
const e = t.editor;
/** The sections the page's charts speak in: its own, the try-it box's (the guide's) and the failures every flow shares. */
const TEXTS = { functions: t, guide: messages.guide, ...FAILURE_TEXTS };

/** The charts the page runs; tests may hand in ones with fake effects. */
export const FunctionsChart = createChartContext(functionsMachine);
export const FunctionEditorChart = createChartContext(functionEditorMachine);
export const TryFunctionChart = createChartContext(tryQueryMachine);

/** Whether the caller may change or delete a function: their own, or their team's as its owner or an admin. */
const canChange = (fn: CustomFunction, role: TeamRole | null) => fn.scope === 'personal' || managesTeam(role);

/** What Professional adds, with the way to it, where a Free account would see its functions. */
function Upgrade() {
  const plan = planWith('custom_functions');
  return (
    <SectionCard title={t.upgrade.title}>
      <Text color="fg.muted">{t.upgrade.lead(plan.name)}</Text>
      <List.Root gap="2" ps="5">
        {t.upgrade.points.map((point) => (
          <List.Item key={point}>{point}</List.Item>
        ))}
      </List.Root>
      <Button asChild colorPalette="brand" alignSelf="flex-start">
        <RouterLink to="/subscription">{t.upgrade.button(plan.name)}</RouterLink>
      </Button>
    </SectionCard>
  );
}

/**
 * The editor of one function (or a new one): its own chart, which ends once the function is saved
 * (`onClose` with it) or the editing cancelled (`onClose` with null).
 */
function FunctionEditor({ fn, canShare, onClose }: { fn: CustomFunction | null; canShare: boolean; onClose(saved: CustomFunction | null): void }) {
  const auth = useAuthRef();
  const formId = useId();
  const headingId = useId();
  const actor = FunctionEditorChart.useActor({
    input: { auth, function: fn },
    effects: {
      focusField: (_, field) => {
        if (field) document.querySelector<HTMLElement>(`[id="${formId}"] [name="${field}"]`)?.focus();
      },
    },
  });
  const { values, errors, busy, done, output } = useSelector(actor, (s) => ({
    values: s.context.values,
    errors: s.context.errors,
    busy: s.hasTag('busy'),
    done: s.status === 'done',
    output: s.output ?? null,
  }));
  useEffect(() => {
    if (done) onClose(output);
  }, [done, output, onClose]);
  const change = (field: FunctionField) => (event: { target: { value: string } }) => actor.send({ type: 'field.change', field, value: event.target.value });
  const showScope = fn === null && canShare;
  // A refusal about the scope (a team's limit, say) where no scope is offered belongs to the whole form.
  const formError = errors.form ?? (showScope ? undefined : errors.scope);
  const error = (field: FunctionField) => errors[field] && say(errors[field], TEXTS);
  return (
    <Stack as="section" aria-labelledby={headingId} gap="4" borderWidth="1px" borderRadius="md" p={{ base: '4', md: '5' }} bg="bg.subtle">
      <Heading as="h3" id={headingId} size="md" wordBreak="break-word">
        {fn ? e.editTitle(fn.name) : e.newTitle}
      </Heading>
      {formError && (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Description>{say(formError, TEXTS)}</Alert.Description>
        </Alert.Root>
      )}
      <form
        id={formId}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          actor.send({ type: 'form.submit' });
        }}
      >
        <Stack gap="4">
          <Field.Root required invalid={Boolean(errors.name)}>
            <Field.Label>
              {e.name}
              <Field.RequiredIndicator />
            </Field.Label>
            <Input name="name" value={values.name} onChange={change('name')} autoComplete="off" spellCheck={false} fontFamily="mono" maxW="md" />
            {errors.name ? <Field.ErrorText>{error('name')}</Field.ErrorText> : <Field.HelperText>{e.nameHelp}</Field.HelperText>}
          </Field.Root>
          <Field.Root required>
            <Field.Label>{e.task}</Field.Label>
            <NativeSelect.Root maxW="xs">
              <NativeSelect.Field name="task" value={values.task} onChange={change('task')}>
                {TASKS.map((task) => (
                  <option key={task} value={task}>
                    {e.tasks[task]}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root required invalid={Boolean(errors.prompt)}>
            <Field.Label>
              {e.prompt}
              <Field.RequiredIndicator />
            </Field.Label>
            <Textarea name="prompt" rows={4} value={values.prompt} onChange={change('prompt')} placeholder="Total {{input}} by region" />
            {errors.prompt ? <Field.ErrorText>{error('prompt')}</Field.ErrorText> : <Field.HelperText>{e.promptHelp}</Field.HelperText>}
          </Field.Root>
          <Field.Root invalid={Boolean(errors.description)}>
            <Field.Label>{e.description}</Field.Label>
            <Input name="description" value={values.description} onChange={change('description')} />
            {errors.description ? <Field.ErrorText>{error('description')}</Field.ErrorText> : <Field.HelperText>{e.descriptionHelp}</Field.HelperText>}
          </Field.Root>
          {showScope && (
            <Field.Root invalid={Boolean(errors.scope)}>
              <Field.Label>{e.scope}</Field.Label>
              {/* A select rather than radio buttons: its recipe is in the theme already (src/app/theme.ts). */}
              <NativeSelect.Root maxW="sm">
                <NativeSelect.Field name="scope" value={values.scope} onChange={change('scope')}>
                  <option value="personal">{e.scopePersonal}</option>
                  <option value="team">{e.scopeTeam}</option>
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
              <Field.ErrorText>{error('scope')}</Field.ErrorText>
            </Field.Root>
          )}
          <HStack gap="3" wrap="wrap">
            <Button type="submit" colorPalette="brand" loading={busy} loadingText={e.saving}>
              {e.save}
            </Button>
            <Button variant="outline" disabled={busy} onClick={() => actor.send({ type: 'form.cancel' })}>
              {e.cancel}
            </Button>
          </HStack>
        </Stack>
      </form>
    </Stack>
  );
}

interface ItemProps {
  fn: CustomFunction;
  role: TeamRole | null;
  asked: boolean;
  busy: boolean;
  onEdit(): void;
  onDelete(): void;
  onTry(): void;
  onConfirm(): void;
  onCancel(): void;
}

/** One function: its name and cell call, its scope and task, what it does, and what the caller may do with it. */
function FunctionItem({ fn, role, asked, busy, onEdit, onDelete, onTry, onConfirm, onCancel }: ItemProps) {
  const changeable = canChange(fn, role);
  return (
    <Stack as="li" gap="2" py="4" borderTopWidth="1px" _first={{ borderTopWidth: 0 }} aria-label={fn.name}>
      <HStack gap="2" wrap="wrap" align="baseline">
        <Text as="span" fontWeight="semibold" fontFamily="mono" wordBreak="break-all">
          {fn.name}
        </Text>
        <Badge colorPalette={fn.scope === 'team' ? 'purple' : 'gray'}>{fn.scope === 'team' ? t.scopeTeam : t.scopePersonal}</Badge>
        <Badge variant="outline">{t.task(e.tasks[fn.task] ?? fn.task)}</Badge>
      </HStack>
      <Code alignSelf="flex-start" fontSize="sm" wordBreak="break-all" whiteSpace="pre-wrap">
        {t.cellCall(fn.name)}
      </Code>
      {fn.description && (
        <Text fontSize="sm" color="fg.muted" wordBreak="break-word">
          {fn.description}
        </Text>
      )}
      {!changeable && (
        <Text fontSize="sm" color="fg.muted">
          {t.teamReadOnly}
        </Text>
      )}
      {asked ? (
        <Confirm question={t.deleteConfirm(fn.name)} yes={t.confirmDelete} no={t.cancel} onYes={onConfirm} onCancel={onCancel} />
      ) : (
        <HStack gap="2" wrap="wrap">
          <Button size="sm" variant="outline" onClick={onTry} aria-label={`${t.run}: ${fn.name}`}>
            {t.run}
          </Button>
          {changeable && (
            <>
              <Button size="sm" variant="outline" onClick={onEdit} disabled={busy} aria-label={`${t.edit}: ${fn.name}`}>
                {t.edit}
              </Button>
              <Button size="sm" variant="outline" colorPalette="red" onClick={onDelete} disabled={busy} aria-label={`${t.delete}: ${fn.name}`}>
                {t.delete}
              </Button>
            </>
          )}
        </HStack>
      )}
    </Stack>
  );
}

/** The try-it box: a function run on the sample table, its answer shown as it is written. */
function TryFunction({ functions, chosen, onChoose, tryRef }: { functions: CustomFunction[]; chosen: string; onChoose(name: string): void; tryRef: TryActor }) {
  const selectId = useId();
  const { fn, answer, partial, problem, busy } = useSelector(tryRef, (s) => ({
    fn: s.context.fn,
    answer: s.context.answer,
    partial: s.context.partial,
    problem: s.context.problem,
    busy: s.hasTag('busy'),
  }));
  const names = [...new Set(functions.map((one) => one.name))];
  const name = names.includes(chosen) ? chosen : (names[0] ?? '');
  const prompt = functions.find((one) => one.name === name)?.prompt;
  return (
    <TryItCard
      title={t.tryTitle}
      lead={t.tryLead}
      id="try-function"
      problem={problem && say(problem, TEXTS)}
      answer={fn && <TryItAnswer title={t.answerOf(fn)} partial={partial} answer={answer} />}
    >
      {names.length === 0 ? (
        <Text color="fg.muted">{t.tryNone}</Text>
      ) : (
        <>
          <Field.Root>
            <Field.Label htmlFor={selectId}>{t.tryPick}</Field.Label>
            <NativeSelect.Root maxW="md">
              <NativeSelect.Field id={selectId} value={name} onChange={(event) => onChoose(event.target.value)} fontFamily="mono">
                {names.map((one) => (
                  <option key={one} value={one}>
                    {one}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          {prompt && (
            <Text fontStyle="italic" wordBreak="break-word">
              “{prompt}”
            </Text>
          )}
          <Text fontSize="sm" color="fg.muted">
            {messages.guide.counts}
          </Text>
          <Button colorPalette="brand" alignSelf="flex-start" maxW="full" onClick={() => tryRef.send({ type: 'query.ask', fn: name })} loading={busy} loadingText={t.running}>
            <Text as="span" truncate>
              {t.tryRun(name)}
            </Text>
          </Button>
        </>
      )}
    </TryItCard>
  );
}

type TryActor = ReturnType<typeof TryFunctionChart.useActor>;

/** /functions: the caller's and their team's custom functions, made, changed, deleted and tried here. */
export default function FunctionsPage() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const actor = FunctionsChart.useActor({ input: { auth }, effects: { notify: toastEffect } });
  const tryRef = TryFunctionChart.useActor({ input: { auth } });
  const { state, functions, role, pendingId, busy } = useDeferredSelector(actor, (s) => ({
    state: s.hasTag('loading') && s.context.functions.length === 0 ? 'loading' : s.matches('upgrade') ? 'upgrade' : s.matches('failed') ? 'failed' : 'ready',
    functions: s.context.functions,
    role: s.context.teamRole,
    pendingId: s.matches('confirmingDelete') ? s.context.pendingId : null,
    // While a deletion is asked about, the other functions' changes wait (the chart takes none then).
    busy: s.hasTag('busy') || s.hasTag('loading') || s.matches('confirmingDelete'),
  }));
  /** The function being edited, 'new' for a new one, null when no editor is open. */
  const [editing, setEditing] = useState<CustomFunction | 'new' | null>(null);
  const [chosen, setChosen] = useState('');
  const listId = useId();
  const closeEditor = (saved: CustomFunction | null) => {
    setEditing(null);
    if (saved) {
      toastEffect(undefined, { type: 'success', title: 'functions.saved' });
      actor.send({ type: 'functions.reload' });
    }
  };
  const personal = functions.filter((fn) => fn.scope === 'personal').length;
  const team = functions.length - personal;

  let body;
  if (state === 'loading') body = <PageSpinner />;
  else if (state === 'upgrade') body = <Upgrade />;
  else if (state === 'failed') {
    body = (
      <Alert.Root status="error" role="alert" alignItems="center">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Description>{t.failed}</Alert.Description>
        </Alert.Content>
        <Button size="sm" variant="outline" flexShrink={0} onClick={() => actor.send({ type: 'functions.retry' })}>
          {t.retry}
        </Button>
      </Alert.Root>
    );
  } else {
    body = (
      <Stack gap="6">
        <Card.Root as="section" aria-labelledby={listId} variant="outline">
          <Card.Body gap="4">
            <HStack justify="space-between" align="start" gap="3" wrap="wrap">
              <Stack gap="1">
                <Heading as="h2" id={listId} size="lg">
                  {t.listTitle}
                </Heading>
                <Text fontSize="sm" color="fg.muted">
                  {t.limits(personal, role === null ? null : team)}
                </Text>
              </Stack>
              {editing !== 'new' && (
                <Button colorPalette="brand" onClick={() => setEditing('new')}>
                  {t.newFunction}
                </Button>
              )}
            </HStack>
            {editing === 'new' && <FunctionEditor key="new" fn={null} canShare={managesTeam(role)} onClose={closeEditor} />}
            {functions.length === 0 ? (
              <Text color="fg.muted">{t.empty}</Text>
            ) : (
              <Stack as="ul" gap="0" listStyleType="none">
                {functions.map((fn) =>
                  editing !== null && editing !== 'new' && editing.id === fn.id ? (
                    <li key={fn.id}>
                      <FunctionEditor key={fn.id} fn={fn} canShare={false} onClose={closeEditor} />
                    </li>
                  ) : (
                    <FunctionItem
                      key={fn.id}
                      fn={fn}
                      role={role}
                      busy={busy}
                      asked={pendingId === fn.id}
                      onEdit={() => setEditing(fn)}
                      onDelete={() => actor.send({ type: 'function.delete', id: fn.id })}
                      onConfirm={() => actor.send({ type: 'change.confirm' })}
                      onCancel={() => actor.send({ type: 'change.cancel' })}
                      onTry={() => {
                        setChosen(fn.name);
                        tryRef.send({ type: 'query.ask', fn: fn.name });
                        document.getElementById('try-function')?.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
                      }}
                    />
                  ),
                )}
              </Stack>
            )}
          </Card.Body>
        </Card.Root>
        <TryFunction functions={functions} chosen={chosen} onChoose={setChosen} tryRef={tryRef} />
      </Stack>
    );
  }
  return (
    <Container maxW="4xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.title} lead={t.lead} mb="8" />
      {body}
    </Container>
  );
}
