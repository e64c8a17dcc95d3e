// Types of build-parts.mjs (plain JavaScript, so that it runs before the build it decides on).

export interface BuildPart {
  readonly name: string
  /** Written when the part's build succeeds, with the time that build started. */
  readonly stamp: string
  /** Files and directories (searched recursively) the part is built from. */
  readonly inputs: readonly string[]
  /** Files the part's build makes; one missing means building again from scratch. */
  readonly outputs: readonly string[]
}

export declare const BUILD_PARTS: readonly BuildPart[]
export declare function newestInput(root: string, inputs: readonly string[]): { path: string; mtimeMs: number } | undefined
export declare function whyBuild(root: string, part: BuildPart): { reason: string; incremental: boolean } | undefined
