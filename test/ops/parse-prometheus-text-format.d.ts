// Types for parse-prometheus-text-format (the package ships none): the shape it returns.
declare module 'parse-prometheus-text-format' {
  interface ParsedSample {
    readonly value?: string
    readonly labels?: Readonly<Record<string, string>>
    readonly buckets?: Readonly<Record<string, string>>
    readonly quantiles?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  interface ParsedFamily {
    readonly name: string
    readonly help: string
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    readonly metrics: readonly ParsedSample[]
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[]
}
