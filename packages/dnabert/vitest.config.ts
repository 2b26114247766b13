// These tests compute in-process, with no clock or race in them: two files at a time (vitest.shared.ts).
import { defineConfig, mergeConfig } from 'vitest/config';
import shared, { twoFilesAtATime } from '../../vitest.shared.ts';

export default mergeConfig(shared, defineConfig({ test: twoFilesAtATime }));
