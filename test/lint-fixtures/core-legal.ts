// lint as: core/src/fixture.ts
// expect: clean
import { z } from 'zod';
import { InputError } from './errors';
export const x = [z, InputError];
