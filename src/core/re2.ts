import type * as Re2 from 're2js';
import { lazyRequire } from './lazy-require.js';

/** re2js, loaded by the first pattern compiled (a rule's glob, an output check, logs --grep), not by every run and create (#20). */
export const re2 = lazyRequire<typeof Re2>('re2js');
