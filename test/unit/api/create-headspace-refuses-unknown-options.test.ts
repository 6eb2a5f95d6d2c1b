/**
 * createHeadspace refuses an option it does not take, as every verb refuses
 * an unknown input key (#12 item 15): `defaultProvder` misspelt used to be
 * ignored, and the engine then ran on another provider than the caller meant.
 */
import { describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../src/api/index.js';

describe('createHeadspace options', () => {
  it('refuses an unknown option, naming the ones it takes', () => {
    expect(() => createHeadspace({ defaultProvder: 'fake' } as never)).toThrow(
      expect.objectContaining({ code: 'BAD_ARGUMENT', message: expect.stringContaining("'defaultProvder'"), hint: expect.stringContaining('defaultProvider') }),
    );
  });
});
