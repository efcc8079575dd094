import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Length, MaxLength, Min, ValidateNested } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Field, McpContext, RequireScopes, Tool } from 'mcpkit';
import { Ticket, TicketsApi } from './tickets.client';

export class ListTicketsInput {
  @Field('Only tickets with this status') @IsOptional() @IsIn(['open', 'closed']) status?: 'open' | 'closed';
}

export class TicketList {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Ticket) tickets!: Ticket[];
}

export class TicketId {
  @IsInt() @Min(1) id!: number;
}

export class CreateTicketInput {
  @IsString() @Length(1, 200) title!: string;
  @IsOptional() @IsString() @MaxLength(10_000) body?: string;
}

/**
 * Every tool needs `tickets:read` (the class's scope); the ones that change something also need
 * `tickets:write` (method scopes add to the class's). A token without it sees only the read tools in
 * tools/list, and a call to a write tool is refused with 403 insufficient_scope, which clients answer
 * by asking the user for the larger grant (step-up).
 */
@injectable()
@RequireScopes('tickets:read')
export class TicketsTools {
  constructor(@inject(TicketsApi) private readonly api: TicketsApi) {}

  @Tool({ description: 'Lists tickets', input: ListTicketsInput, output: TicketList, annotations: { readOnlyHint: true } })
  async listTickets(input: ListTicketsInput, ctx: McpContext): Promise<TicketList> {
    return { tickets: await this.api.list(ctx, input.status) };
  }

  @Tool({ description: 'Reads one ticket', input: TicketId, output: Ticket, annotations: { readOnlyHint: true } })
  getTicket(input: TicketId, ctx: McpContext): Promise<Ticket> {
    return this.api.get(ctx, input.id);
  }

  @Tool({ description: 'Opens a ticket', input: CreateTicketInput, output: Ticket, annotations: { idempotentHint: false } })
  @RequireScopes('tickets:write')
  createTicket(input: CreateTicketInput, ctx: McpContext): Promise<Ticket> {
    return this.api.create(ctx, input.title, input.body ?? '');
  }

  @Tool({ description: 'Closes a ticket', input: TicketId, output: Ticket, annotations: { idempotentHint: true } })
  @RequireScopes('tickets:write')
  closeTicket(input: TicketId, ctx: McpContext): Promise<Ticket> {
    return this.api.close(ctx, input.id);
  }
}
