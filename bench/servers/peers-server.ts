/**
 * The cold-start floor of any class-validator application: the bare answering process, after loading
 * the packages a user's own DTOs and services import (mcpkit's peers). mcpkit's own cost is the gap
 * between this and the mcpkit server.
 */
import 'reflect-metadata';
import 'class-validator';
import 'class-transformer';
import 'tsyringe';
import './bare-server';
