import { useId, type ChangeEvent, type ReactNode } from 'react'

/** A labelled select whose empty option means "any". */
export function SelectField({
  label,
  value,
  options,
  onChange,
  anyLabel = 'Any',
}: {
  label: string
  value: string
  options: readonly string[] | readonly { value: string; label: string }[]
  onChange: (value: string) => void
  anyLabel?: string | null
}) {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event: ChangeEvent<HTMLSelectElement>) => onChange(event.target.value)}>
        {anyLabel !== null && <option value="">{anyLabel}</option>}
        {options.map((option) => {
          const { value: v, label: l } = typeof option === 'string' ? { value: option, label: option.replace(/_/g, ' ') } : option
          return (
            <option key={v} value={v}>
              {l}
            </option>
          )
        })}
      </select>
    </div>
  )
}

export function TextField({
  label,
  value,
  onChange,
  type = 'text',
  required,
  autoComplete,
  hint,
  multiline,
  autoFocus,
  describedBy,
}: {
  label: string
  value: string
  onChange: (value: string) => void
  /** The id of something else that describes the field (a notice), read with it. */
  describedBy?: string | undefined
  type?: string
  required?: boolean
  autoComplete?: string
  hint?: ReactNode
  multiline?: boolean
  autoFocus?: boolean
}) {
  const id = useId()
  const hintId = `${id}-hint`
  const common = {
    id,
    value,
    required,
    autoFocus,
    'aria-describedby': [describedBy, hint ? hintId : undefined].filter(Boolean).join(' ') || undefined,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange(event.target.value),
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      {multiline ? <textarea rows={4} {...common} /> : <input type={type} autoComplete={autoComplete} {...common} />}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
    </div>
  )
}
