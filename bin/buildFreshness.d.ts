export declare const BUILT_CLI: string
export declare function isBuildFresh(root: string): boolean
