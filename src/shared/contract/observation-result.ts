/**
 * The result of every tool that shows the screen (terminal_start, terminal_input,
 * terminal_snapshot, terminal_resize): one shape, so an agent reads every observation the same
 * way and an SDK client compiles one validator for all four (the schema's `$id` is the same in
 * each tool's entry). A field a tool never sets is simply absent from its results.
 *
 * Field order is the order results are written in (`RESULT_ORDER`): who, what went wrong, what
 * the call did, then the screen, so small facts come before the large one.
 * @see spec/tools.md (Results)
 */
import { z } from 'zod';
import { commonSchemas, lazy } from './common.js';
import { progressSchemas } from './progress.js';
import { snapshotSchemas } from './snapshot.js';

/** The observation result schema, built once on first use. */
export const observationResultSchemas = lazy(() => {
  const { errorField } = commonSchemas();
  const { WaitReportSchema } = progressSchemas();
  const { SnapshotSchema } = snapshotSchemas();

  const ObservationResultSchema = z.strictObject({
    sessionId: z.string().optional(),
    watchers: z.int().optional(),
    personTyped: z.boolean().optional(),
    ...errorField,
    // terminal_start
    timedOut: z.boolean().optional(),
    inputRequired: z.boolean().optional(),
    closed: z.boolean().optional(),
    recording: z.string().optional(),
    recordingError: z.string().optional(),
    // terminal_input
    actionsCompleted: z.int().optional(),
    inputSent: z.boolean().optional(),
    failedActionIndex: z.int().optional(),
    waits: z.array(WaitReportSchema).optional(),
    snapshot: SnapshotSchema.optional(),
  });

  return { ObservationResultSchema };
});

/** What a screen-showing tool answers with. */
export type ObservationResult = z.output<
  ReturnType<typeof observationResultSchemas>['ObservationResultSchema']
>;

/** The order of a result's fields: the observation result's, then any other tool's. */
export const RESULT_ORDER: readonly string[] = [
  'sessionId',
  'watchers',
  'personTyped',
  'error',
  'timedOut',
  'inputRequired',
  'closed',
  'recording',
  'recordingError',
  'actionsCompleted',
  'inputSent',
  'failedActionIndex',
  'waits',
  'sessions',
  'snapshot',
];
