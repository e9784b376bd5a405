/** One `pnpm bench <name>` command. */
export interface Benchmark {
  name: string;
  /** One line for the list `pnpm bench` prints. */
  summary: string;
  /** Runs with the arguments after the name; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}
