import { ConfigError, loadConfig } from '../../src/config.js';

/** Every problem loadConfig reports for `env`, in its words; none when the configuration is valid. */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
