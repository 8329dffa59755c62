export type TValues = {
  namespace: string;
  image: string;
  webReplicas: number;
  workerReplicas: number;
  runnerNodeLabel: string;
  publicUrl: string;
  surfaceDomain: string;
};
export const DEFAULTS: TValues;
export function sharedSettings(v: TValues): Record<string, string>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function renderManifests(values?: Partial<TValues>): Record<string, any>[];
