import { Table, Text } from '@chakra-ui/react';
import { formatNumber } from '../lib/formats';

export interface TotalsRow {
  key: string;
  label: string;
  /** A second, quieter line under the label (what kind of credential it is). */
  detail?: string;
  queries: number;
  tokens: number;
}

/**
 * Queries and tokens per member, task or credential. A long name wraps, anywhere if it must, so
 * the table never needs a sideways scroll on a phone; the counts keep to one line.
 */
export function UsageTotals({ caption, headers, rows }: { caption: string; headers: [name: string, queries: string, tokens: string]; rows: readonly TotalsRow[] }) {
  return (
    <Table.Root size="sm" variant="outline" tableLayout="fixed">
      <Table.Caption captionSide="top" textAlign="start" fontWeight="medium" mb="1">
        {caption}
      </Table.Caption>
      <Table.Header>
        <Table.Row>
          <Table.ColumnHeader>{headers[0]}</Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end" w="24">
            {headers[1]}
          </Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end" w="28">
            {headers[2]}
          </Table.ColumnHeader>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {rows.map((row) => (
          <Table.Row key={row.key}>
            <Table.Cell overflowWrap="anywhere">
              {row.label}
              {row.detail && (
                <Text as="span" display="block" fontSize="xs" color="fg.muted">
                  {row.detail}
                </Text>
              )}
            </Table.Cell>
            <Table.Cell textAlign="end" whiteSpace="nowrap">
              {formatNumber(row.queries)}
            </Table.Cell>
            <Table.Cell textAlign="end" whiteSpace="nowrap">
              {formatNumber(row.tokens)}
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}
