// Types of find-chromium.mjs (plain JavaScript, so that the benchmarks run it without a build).

export type ChromiumSearch =
  | { kind: 'found'; path: string; from: 'CHROMIUM_PATH' | 'PATH' }
  /** `required`: the run must fail (CI, REQUIRE_BROWSER, or a CHROMIUM_PATH that is wrong); otherwise skip. */
  | { kind: 'missing'; required: boolean; message: string }

export interface ChromiumEnvironment {
  CHROMIUM_PATH?: string | undefined
  PATH?: string | undefined
  CI?: string | undefined
  REQUIRE_BROWSER?: string | undefined
}

export declare const CHROMIUM_NAMES: readonly string[]
export declare const HOW_TO_ENABLE: string
export declare function flagIsOn(value: string | undefined): boolean
export declare function isExecutableFile(path: string): boolean
export declare function findChromium(env: ChromiumEnvironment, isExecutable?: (path: string) => boolean): ChromiumSearch
